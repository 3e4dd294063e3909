package schema

import (
	"context"
	"fmt"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/option"

	"github.com/spanload/spanload/goworker/internal/admin"
)

// Ensure creates what spec's workload needs and is missing (admin.Ensure).
func Ensure(ctx context.Context, p admin.Paths, spec *Spec, opts ...option.ClientOption) error {
	return admin.Ensure(ctx, p, spec.Kind, spec.DDL, opts...)
}

// Seed inserts the leaderboard's players once (insert-or-update, so it is idempotent).
func Seed(ctx context.Context, client *spanner.Client, spec *Spec) error {
	if !spec.SeedPlayers {
		return nil
	}
	ms := make([]*spanner.Mutation, 0, LeaderboardPlayers)
	for i := range LeaderboardPlayers {
		ms = append(ms, spanner.InsertOrUpdate("Players", []string{"PlayerId", "PlayerName"},
			[]any{int64(i), fmt.Sprintf("player-%d", i)}))
	}
	if _, err := client.Apply(ctx, ms); err != nil {
		return fmt.Errorf("could not seed the players: %w", err)
	}
	return nil
}
