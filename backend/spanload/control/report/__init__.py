"""The HTML report of a run or a comparison (build.py), its charts (charts.py) and templates."""
