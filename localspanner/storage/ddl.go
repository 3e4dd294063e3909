package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// DDL returns the canonical DDL statements of the schema.
func (d *DB) DDL() []string { return d.Catalog().DDL() }

// ApplyDDL applies DDL statements in order. Statements before a failing one stay
// applied, as in Spanner; it returns how many were applied and the error of the
// failing statement (naming it). comp holds the query layer's compilers (passed in by
// exec): comp.Expr compiles the generated-column and DEFAULT expressions of new columns,
// comp.View checks views (schema.CheckViews).
//
// Each statement holds the commit lock only while it applies, so commits land between the
// statements of a batch; each gets a commit timestamp later than every commit before it,
// which the hook WithDDLCommitted put on ctx receives.
func (d *DB) ApplyDDL(ctx context.Context, stmts []string, comp schema.Compilers) (int, error) {
	d.ddlMu.Lock()
	defer d.ddlMu.Unlock()
	if err := d.parseBatch(stmts); err != nil { // d.ddl changes only under ddlMu
		return 0, err
	}
	committed, _ := ctx.Value(ddlCommittedKey{}).(func(ts int64))
	for i, s := range stmts {
		ts, err := d.applyLocked(ctx, s, comp)
		if err != nil {
			if spanerr.IsSyntax(err) {
				return i, err // Spanner's parse error names the statement itself
			}
			return i, fmt.Errorf("statement %q: %w", schema.StripDescriptors(s), err)
		}
		if committed != nil {
			committed(ts)
		}
		if i < len(stmts)-1 {
			d.yieldToCommits()
		}
	}
	return len(stmts), nil
}

// yieldToCommits lets writes in between a batch's statements: without it the next statement
// would take the lock back at once, and writes would wait for the whole batch. When commits
// wait for the lock, or one ended in the last 50 ms (writes are going on), it waits until the
// next commit ends, at most 100 ms; with no writes going on it does not wait.
func (d *DB) yieldToCommits() {
	recent := time.Since(time.Unix(0, d.lastCommitEnd.Load())) < 50*time.Millisecond
	if d.commitsWaiting.Load() == 0 && !recent {
		return
	}
	done, deadline := d.commitsDone.Load(), time.Now().Add(100*time.Millisecond)
	for d.commitsDone.Load() == done && time.Now().Before(deadline) {
		time.Sleep(50 * time.Microsecond)
	}
}

type ddlCommittedKey struct{}

// WithDDLCommitted returns ctx with a hook ApplyDDL calls with each applied statement's
// commit timestamp (µs), in order.
func WithDDLCommitted(ctx context.Context, committed func(ts int64)) context.Context {
	return context.WithValue(ctx, ddlCommittedKey{}, committed)
}

// applyLocked applies one statement under the commit lock and returns its commit timestamp.
func (d *DB) applyLocked(ctx context.Context, stmt string, comp schema.Compilers) (int64, error) {
	d.commitMu.Lock()
	defer d.commitMu.Unlock()
	if err := d.applyOne(ctx, stmt, comp); err != nil {
		return 0, err
	}
	return d.createdTS(), nil
}

func (d *DB) applyOne(ctx context.Context, stmt string, comp schema.Compilers) error {
	if handled, err := d.applyOptions(ctx, stmt); handled {
		return err
	}
	ch, err := schema.Apply(d.ddl, stmt)
	if err != nil {
		return err
	}
	if err := schema.CheckViews(ch, comp.View); err != nil {
		return err
	}
	if defaultChanged(ch) && ch.AlteredColumn.Default != "" && comp.Default != nil {
		if err := comp.Default(ch.AlteredTable, ch.AlteredColumn); err != nil {
			return err
		}
	}
	var sqls []string
	switch {
	case ch.CreatedTable != nil:
		sqls, err = ch.CreatedTable.SQLiteCreateTable(comp.Expr, commitTSFunc)
	case ch.DroppedTable != nil:
		sqls = ch.DroppedTable.SQLiteDropTable()
	case ch.CreatedIndex != nil:
		sqls = []string{ch.CreatedIndex.SQLiteCreateIndex()}
	case ch.DroppedIndex != nil:
		sqls = []string{"DROP INDEX IF EXISTS " + ch.DroppedIndex.SQLName}
	case ch.AddedColumn != nil:
		sqls, err = ch.AlteredTable.SQLiteAddColumn(ch.AddedColumn, comp.Expr, commitTSFunc)
	case ch.DroppedCol != nil:
		sqls = ch.AlteredTable.SQLiteDropColumn(ch.DroppedCol, commitTSFunc)
	}
	if err != nil {
		return err
	}
	more, checks, err := constraintDDL(ch, comp.Expr)
	if err != nil {
		return err
	}
	sqls = append(sqls, more...)
	if retyped(ch) {
		conv, convChecks := retypeDDL(ch)
		sqls = append(sqls, conv...)
		checks = append(checks, convChecks...)
	}
	if drops, creates := changeTriggers(ch.Old, ch.Catalog); len(drops)+len(creates) > 0 {
		sqls = append(append(drops, sqls...), creates...)
	}
	tx, err := d.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	for _, dc := range checks {
		if err := runDataCheck(ctx, tx, dc); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	for _, s := range sqls {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			_ = tx.Rollback()
			if ch.CreatedIndex != nil && isUniqueErr(err) {
				return spanerr.FailedPrecondition("Found uniqueness violation on index %s: %v", ch.CreatedIndex.Name, err)
			}
			return spanerr.FailedPrecondition("cannot apply to SQLite (%s): %v", s, err)
		}
	}
	if defaultChanged(ch) || retyped(ch) {
		if err := rewriteTableDef(ctx, tx, ch.AlteredTable, comp.Expr); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	dropped := append(droppedSplits(ch), retypedSplits(ch)...)
	for _, o := range dropped {
		if _, err := tx.ExecContext(ctx, "DELETE FROM _spanload_splits WHERE obj = ?", o); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("drop splits of %s: %w", o, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM _spanload_split_log WHERE obj = ?", o); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("drop split log of %s: %w", o, err)
		}
	}
	if err := recordStreamCreated(ctx, tx, ch, d.createdTS()); err != nil {
		_ = tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO _spanload_ddl (stmt) VALUES (?)", stmt); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("record DDL: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit DDL: %w", err)
	}
	d.ddl = append(d.ddl, stmt)
	d.forgetSplits(dropped)
	d.resetStmts()
	d.cat.Store(ch.Catalog.WithDialect(d.Dialect()))
	return nil
}

// parseBatch finds a statement of stmts that does not parse, as Spanner does before
// it applies any of the batch: it replays the batch on the catalog alone (a misspelt
// column type shows only against the proto bundle of the statements before it). Past
// a statement that fails otherwise (applying reports that one), it only parses.
func (d *DB) parseBatch(stmts []string) error {
	prev, replay := d.ddl, true
	for _, s := range stmts {
		var err error
		if replay {
			_, err = schema.Apply(prev, s)
		} else {
			_, err = schema.ParseDDL(s)
		}
		if spanerr.IsSyntax(err) {
			return err
		}
		replay = replay && err == nil
		prev = append(prev[:len(prev):len(prev)], s)
	}
	return nil
}
