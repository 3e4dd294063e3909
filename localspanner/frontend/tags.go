package frontend

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/txn"
)

// maxTagChars is how much of a request or transaction tag Spanner keeps
// (google.spanner.v1.RequestOptions: "the length of a request_tag is limited
// to 50 characters. Values that exceed this limit are truncated. Any leading
// underscore (_) characters will be removed from the string.").
const maxTagChars = 50

// cleanTag is a tag as Spanner records it in its statistics tables.
func cleanTag(tag string) string {
	tag = strings.TrimLeft(tag, "_")
	if len(tag) > maxTagChars {
		tag = tag[:maxTagChars]
	}
	return tag
}

// requestTag is the request tag of a query's statistics row.
func requestTag(opts *spannerpb.RequestOptions) string {
	return cleanTag(opts.GetRequestTag())
}

// tagTxn records the transaction tag of a read-write transaction from the
// first request of it that carries one (BeginTransaction, a statement that
// begins it inline, a later statement, or the Commit): the tag of its TXN_STATS
// row. A read-only transaction has no such row, so its tag is not kept.
func tagTxn(t *txn.Txn, opts *spannerpb.RequestOptions) {
	if t == nil || t.ReadOnly || t.Tag != "" {
		return
	}
	t.Tag = cleanTag(opts.GetTransactionTag())
}
