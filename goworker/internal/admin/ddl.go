// Package admin is what a run does with the admin APIs: apply DDL (a change stream, the latency
// model). Ensure creates the instance, the database and the schema objects that are missing: the
// control plane's job before a definition's run, which the worker's end-to-end tests play.
package admin

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"time"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DDLTimeout bounds each schema operation (a cloud target can take minutes).
const DDLTimeout = 300 * time.Second

var nameRE = regexp.MustCompile("(?i)CREATE\\s+(?:UNIQUE\\s+)?(?:NULL_FILTERED\\s+)?(TABLE|INDEX)\\s+`?(\\w+)`?")

// ObjectNames are the upper-cased names of the tables and indexes statements create.
func ObjectNames(statements []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range statements {
		if m := nameRE.FindStringSubmatch(s); m != nil {
			out[strings.ToUpper(m[2])] = true
		}
	}
	return out
}

// MissingStatements are the statements of wanted whose table or index existing does not create.
func MissingStatements(wanted, existing []string) []string {
	have := ObjectNames(existing)
	var out []string
	for _, s := range wanted {
		m := nameRE.FindStringSubmatch(s)
		if m == nil || !have[strings.ToUpper(m[2])] {
			out = append(out, s)
		}
	}
	return out
}

// Paths names the instance and database of a run.
type Paths struct {
	Project, Instance, Database string
	Cloud                       bool
}

func (p Paths) InstancePath() string {
	return fmt.Sprintf("projects/%s/instances/%s", p.Project, p.Instance)
}
func (p Paths) DatabasePath() string { return p.InstancePath() + "/databases/" + p.Database }

// Ensure creates what is missing: instance (not on cloud), database, tables, indexes. The
// client options reach the admin APIs (the emulator host comes from SPANNER_EMULATOR_HOST).
func Ensure(ctx context.Context, p Paths, kind string, ddl []string, opts ...option.ClientOption) error {
	ctx, cancel := context.WithTimeout(ctx, DDLTimeout)
	defer cancel()
	instances, err := instance.NewInstanceAdminClient(ctx, opts...)
	if err != nil {
		return fmt.Errorf("instance admin client: %w", err)
	}
	defer func() { _ = instances.Close() }()
	if _, err := instances.GetInstance(ctx, &instancepb.GetInstanceRequest{Name: p.InstancePath()}); err != nil {
		if status.Code(err) != codes.NotFound {
			return fmt.Errorf("could not look up instance %s: %w", p.Instance, err)
		}
		if p.Cloud {
			return fmt.Errorf("instance %q does not exist in project %q; create it first (Spanload does not create cloud instances)", p.Instance, p.Project)
		}
		slog.Info("creating instance", "instance", p.Instance)
		op, err := instances.CreateInstance(ctx, &instancepb.CreateInstanceRequest{
			Parent:     "projects/" + p.Project,
			InstanceId: p.Instance,
			Instance: &instancepb.Instance{
				Config:      fmt.Sprintf("projects/%s/instanceConfigs/emulator-config", p.Project),
				DisplayName: p.Instance, NodeCount: 1,
			},
		})
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("could not create instance %s: %w", p.Instance, err)
		}
	}
	databases, err := database.NewDatabaseAdminClient(ctx, opts...)
	if err != nil {
		return fmt.Errorf("database admin client: %w", err)
	}
	defer func() { _ = databases.Close() }()
	if _, err := databases.GetDatabase(ctx, &databasepb.GetDatabaseRequest{Name: p.DatabasePath()}); err != nil {
		if status.Code(err) != codes.NotFound {
			return fmt.Errorf("could not look up database %s: %w", p.Database, err)
		}
		slog.Info("creating database", "database", p.Database, "schema", kind)
		op, err := databases.CreateDatabase(ctx, &databasepb.CreateDatabaseRequest{
			Parent: p.InstancePath(), CreateStatement: "CREATE DATABASE `" + p.Database + "`",
		})
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("could not create database %s: %w", p.Database, err)
		}
	}
	existing, err := currentDDL(ctx, databases, p)
	if err != nil {
		return err
	}
	if todo := MissingStatements(ddl, existing); len(todo) > 0 {
		slog.Info("applying DDL", "statements", len(todo), "database", p.Database)
		if err := updateDDL(ctx, databases, p, todo, "update the schema of"); err != nil {
			return err
		}
		if existing, err = currentDDL(ctx, databases, p); err != nil {
			return err
		}
		if still := MissingStatements(ddl, existing); len(still) > 0 {
			names := make([]string, 0, len(still))
			for n := range ObjectNames(still) {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("the database did not create %v", names)
		}
	}
	return nil
}

func updateDDL(ctx context.Context, c *database.DatabaseAdminClient, p Paths, statements []string, what string) error {
	op, err := c.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{
		Database: p.DatabasePath(), Statements: statements,
	})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("could not %s %s: %w", what, p.Database, err)
	}
	return nil
}

// LatencyModelNone is the local Spanner's default: no modelled delay or CPU.
const LatencyModelNone = "none"

// SetLatencyModel sets the run's latency model on a local Spanner database (spanner/schemas.py
// apply_database_options), on every run start, so that no earlier run's model lingers. A local
// server too old to know the option still runs a run without a model (logged, not fatal).
func SetLatencyModel(ctx context.Context, p Paths, model string, opts ...option.ClientOption) error {
	if model == "" {
		model = LatencyModelNone
	}
	statement := fmt.Sprintf("ALTER DATABASE `%s` SET OPTIONS (spanload_latency_model = '%s')", p.Database, model)
	err := applyDDL(ctx, p, []string{statement}, "set the latency model of", opts...)
	if err != nil && model == LatencyModelNone {
		slog.Info("the local Spanner keeps no latency model", "database", p.Database, "err", err)
		return nil
	}
	return err
}

func currentDDL(ctx context.Context, c *database.DatabaseAdminClient, p Paths) ([]string, error) {
	resp, err := c.GetDatabaseDdl(ctx, &databasepb.GetDatabaseDdlRequest{Database: p.DatabasePath()})
	if err != nil {
		return nil, fmt.Errorf("could not read the schema of %s: %w", p.Database, err)
	}
	return resp.Statements, nil
}

// ApplyDDL applies statements to the database (a definition's change stream, for one).
func ApplyDDL(ctx context.Context, p Paths, statements []string, opts ...option.ClientOption) error {
	return applyDDL(ctx, p, statements, "update the schema of", opts...)
}

func applyDDL(ctx context.Context, p Paths, statements []string, what string, opts ...option.ClientOption) error {
	ctx, cancel := context.WithTimeout(ctx, DDLTimeout)
	defer cancel()
	databases, err := database.NewDatabaseAdminClient(ctx, opts...)
	if err != nil {
		return fmt.Errorf("database admin client: %w", err)
	}
	defer func() { _ = databases.Close() }()
	return updateDDL(ctx, databases, p, statements, what)
}
