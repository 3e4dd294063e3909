package spanclient

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// TestTagRequestPutsEachTagWhereSpannerReadsIt: google.spanner.v1.RequestOptions puts request_tag
// on queries and reads, transaction_tag on the requests of a read-write transaction, and neither
// replaces a tag the caller set.
func TestTagRequestPutsEachTagWhereSpannerReadsIt(t *testing.T) {
	ConfigureTags("spanload-run", map[string]string{"poll": "spanload-run-poll"})
	defer ConfigureTags("", nil)
	tag := TagOf(Tagged(context.Background(), "poll"))
	if tag != "spanload-run-poll" {
		t.Fatalf("TagOf = %q", tag)
	}
	if other := TagOf(Tagged(context.Background(), "unnamed")); other != "spanload-run" {
		t.Fatalf("an operation the start message did not name: %q, want the run's tag", other)
	}
	rw := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: &spannerpb.TransactionOptions{
		Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}}}
	ro := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{SingleUse: &spannerpb.TransactionOptions{
		Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{}}}}}
	for _, tc := range []struct {
		name string
		req  interface {
			GetRequestOptions() *spannerpb.RequestOptions
		}
		reqTag, tx string
	}{
		{"query in a read-write transaction", &spannerpb.ExecuteSqlRequest{Transaction: rw}, tag, tag},
		{"single-use read", &spannerpb.ReadRequest{Transaction: ro}, tag, ""},
		{"batch DML by id", &spannerpb.ExecuteBatchDmlRequest{Transaction: &spannerpb.TransactionSelector{
			Selector: &spannerpb.TransactionSelector_Id{Id: []byte("t")}}}, tag, tag},
		{"commit", &spannerpb.CommitRequest{}, "", tag},
		{"batch write", &spannerpb.BatchWriteRequest{}, "", tag},
		{"read-only begin", &spannerpb.BeginTransactionRequest{Options: ro.GetSingleUse()}, "", ""},
		{"the caller's own tag stays", &spannerpb.ExecuteSqlRequest{RequestOptions: &spannerpb.RequestOptions{RequestTag: "mine"}}, "mine", ""},
	} {
		TagRequest(tc.req, tag)
		if got := tc.req.GetRequestOptions(); got.GetRequestTag() != tc.reqTag || got.GetTransactionTag() != tc.tx {
			t.Errorf("%s: request_tag %q transaction_tag %q, want %q %q", tc.name, got.GetRequestTag(), got.GetTransactionTag(), tc.reqTag, tc.tx)
		}
	}
}
