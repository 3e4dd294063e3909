package schema

import (
	"math/rand/v2"
	"testing"
)

func TestDMLStatementsUpsertEveryWriteColumn(t *testing.T) {
	spec, err := Get("tweets")
	if err != nil {
		t.Fatal(err)
	}
	update, insert := spec.DMLStatements()
	wantUpdate := "UPDATE Tweets SET Author = @p1, Content = @p2, Sort = @p3, Version = @p4, WriterId = @p5, " +
		"LastUpdated = PENDING_COMMIT_TIMESTAMP() WHERE Id = @p0"
	wantInsert := "INSERT INTO Tweets (Id, Author, Content, Sort, Version, WriterId, LastUpdated) " +
		"VALUES (@p0, @p1, @p2, @p3, @p4, @p5, PENDING_COMMIT_TIMESTAMP())"
	if update != wantUpdate || insert != wantInsert {
		t.Errorf("update %q\ninsert %q", update, insert)
	}
}

func TestPayloadsMatchTheirColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kind := range []string{"singers", "tweets", "leaderboard"} {
		spec, err := Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Payload(rng, 123456); len(got) != len(spec.PayloadColumns) {
			t.Errorf("%s: %d payload values for %v", kind, len(got), spec.PayloadColumns)
		}
	}
	if _, err := Get("nope"); err == nil {
		t.Error("an unknown schema was found")
	}
}
