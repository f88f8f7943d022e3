package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

func newStore(t *testing.T) *Store {
	t.Helper()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.LatestTable("documents"))
	s, err := NewStore(srv.Client(), table)
	require.NoError(t, err)
	s.now = func() time.Time { return time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC) }
	return s
}

func TestStore(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()

	_, err := s.Current(ctx, "C-1")
	require.ErrorIs(t, err, ErrNoContract)

	// Eight editors save at once: every save gets its own version.
	var wg sync.WaitGroup
	for e := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				_, err := s.Save(ctx, "C-1", Contract{Customer: "ACME", Amount: int64(i), Status: "draft", EditedBy: fmt.Sprintf("e%d", e)})
				if err != nil {
					t.Errorf("Save: %v", err)
				}
			}
		}()
	}
	wg.Wait()

	cur, err := s.Current(ctx, "C-1")
	require.NoError(t, err)
	assert.Equal(t, int64(40), cur.Version, "Current().Version after 40 saves")
	assert.Equal(t, s.now(), cur.Contract.EditedAt)

	last, err := s.At(ctx, "C-1", 40)
	require.NoError(t, err)
	assert.Equal(t, cur, last, "At(40) is Current()")
	_, err = s.At(ctx, "C-1", 41)
	require.True(t, errors.Is(err, ErrNoContract), "At(41): %v", err)

	var versions []int64
	for cursor := int64(0); ; {
		revs, next, err := s.History(ctx, "C-1", cursor, 15)
		require.NoError(t, err)
		for _, r := range revs {
			versions = append(versions, r.Version)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	require.Len(t, versions, 40)
	for i, v := range versions {
		require.Equal(t, int64(40-i), v, "History position %d", i)
	}

	versions = nil
	for r, err := range s.Revisions(ctx, "C-1", true) {
		require.NoError(t, err)
		require.Equal(t, "ACME", r.Contract.Customer, "revision %d", r.Version)
		versions = append(versions, r.Version)
		if r.Version == 30 {
			break
		}
	}
	require.Len(t, versions, 30, "Revisions, oldest first, up to 30")
	for i, v := range versions {
		require.Equal(t, int64(i+1), v, "Revisions position %d", i)
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.LatestTable("documents"))
	var out bytes.Buffer
	args := []string{"-endpoint", srv.Endpoint(), "-table", table, "-editors", "4", "-saves", "5"}
	require.NoError(t, run(context.Background(), args, &out))
	assert.Contains(t, out.String(), "versions 1..20, current v20")
	assert.Contains(t, out.String(), "history: 20 versions")
}
