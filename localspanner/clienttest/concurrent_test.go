package clienttest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
)

// Issue 25, "beyond the emulator": the Go client's TestIntegration_TransactionRunner,
// which its suite skips against the emulator (skipEmulatorTest: the emulator runs one
// read-write transaction at a time). A user error rolls the transaction back; then two
// read-write transactions overlap: the second reads account 1 before the first commits
// its new balance there, so the second aborts (at a read or at its commit, with retry
// information), the client runs it again, and both effects are visible: balance 1 on
// account 1 and 1+1 on account 2.
func TestGoClientConcurrentReadWriteTransactions(t *testing.T) {
	startServer(t)
	client := newDatabase(t, "runner", []string{
		"CREATE TABLE Accounts (AccountId INT64 NOT NULL, Nickname STRING(100), Balance INT64 NOT NULL) PRIMARY KEY (AccountId)",
		"CREATE INDEX AccountByNickname ON Accounts(Nickname)",
	})
	ctx := context.Background()
	cols := []string{"AccountId", "Nickname", "Balance"}

	_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		if err := tx.BufferWrite([]*spanner.Mutation{spanner.Insert("Accounts", cols, []any{int64(1), "Foo", int64(50)})}); err != nil {
			return err
		}
		return errors.New("user error")
	})
	if err == nil {
		t.Fatal("a transaction whose function fails must fail")
	}
	if _, err := client.Single().ReadRow(ctx, "Accounts", spanner.Key{1}, cols); spanner.ErrCode(err) != codes.NotFound {
		t.Fatalf("read after the user error: %v, want no row (NotFound)", err)
	}

	if _, err := client.Apply(ctx, []*spanner.Mutation{
		spanner.Insert("Accounts", []string{"AccountId", "Balance"}, []any{int64(1), int64(0)}),
		spanner.Insert("Accounts", []string{"AccountId", "Balance"}, []any{int64(2), int64(1)}),
	}); err != nil {
		t.Fatal(err)
	}
	readBalance := func(tx interface {
		ReadRow(ctx context.Context, table string, key spanner.Key, columns []string) (*spanner.Row, error)
	}, key int64, expectAbort bool) (int64, error) {
		r, err := tx.ReadRow(ctx, "Accounts", spanner.Key{key}, []string{"Balance"})
		if err != nil {
			if expectAbort && spanner.ErrCode(err) != codes.Aborted {
				t.Errorf("ReadRow got %v, want Abort error.", err)
			}
			if _, ok := spanner.ExtractRetryDelay(err); !ok {
				t.Errorf("Abort error without RetryInfo: %v", err)
			}
			return 0, err
		}
		var b int64
		return b, r.Column(0, &b)
	}

	var (
		txn1Start  = make(chan struct{})
		txn1Commit = make(chan struct{})
		txn2Start  = make(chan struct{})
		wg         sync.WaitGroup
		attempts2  int
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		var once sync.Once
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			b, err := readBalance(tx, 1, false)
			if err != nil {
				return err
			}
			once.Do(func() { close(txn1Start) })
			if err := tx.BufferWrite([]*spanner.Mutation{
				spanner.Update("Accounts", []string{"AccountId", "Balance"}, []any{int64(1), b + 1})}); err != nil {
				return err
			}
			<-txn2Start
			return nil
		})
		close(txn1Commit)
		if err != nil {
			t.Errorf("Transaction 1 commit, got %v, want nil.", err)
		}
	}()
	go func() {
		<-txn1Start
		defer wg.Done()
		var once sync.Once
		_, err := client.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			attempts2++
			b1, err := readBalance(tx, 1, false)
			if err != nil {
				return err
			}
			once.Do(func() { close(txn2Start) })
			<-txn1Commit
			b2, err := readBalance(tx, 2, true)
			if err != nil {
				return err
			}
			return tx.BufferWrite([]*spanner.Mutation{
				spanner.Update("Accounts", []string{"AccountId", "Balance"}, []any{int64(2), b1 + b2})})
		})
		if err != nil {
			t.Errorf("Transaction 2 commit, got %v, want nil.", err)
		}
	}()
	wg.Wait()
	for key := int64(1); key <= 2; key++ {
		if b, err := readBalance(client.Single(), key, false); err != nil {
			t.Fatalf("ReadBalance for key %d: %v", key, err)
		} else if b != key {
			t.Errorf("Balance for key %d, got %d, want %d.", key, b, key)
		}
	}
	if attempts2 != 2 {
		t.Errorf("transaction 2 ran %d times, want 2 (aborted once by transaction 1's commit)", attempts2)
	}
}
