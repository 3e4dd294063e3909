import sys

from spanload.cli.commands import main

sys.exit(main())
