package tickets_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/tickets"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

func newRepository(t *testing.T) *tickets.Repository {
	t.Helper()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, tickets.Table("tickets"))
	r, err := tickets.NewRepository(srv.Client(), table)
	require.NoError(t, err)
	return r
}

func TestOpenNumbersPerProject(t *testing.T) {
	t.Parallel()
	r := newRepository(t)
	ctx := context.Background()
	var ids []string
	for _, project := range []string{"projectA", "projectA", "projectB", "projectA"} {
		tk := &tickets.Ticket{Project: project, Title: "title", Author: "ada"}
		require.NoError(t, r.Open(ctx, tk))
		ids = append(ids, tk.ID())
	}
	assert.Equal(t, []string{"projectA-1", "projectA-2", "projectB-1", "projectA-3"}, ids)

	got, err := r.Get(ctx, "projectA-2")
	require.NoError(t, err)
	assert.Equal(t, "projectA-2", got.ID())
	assert.Equal(t, "ada", got.Author)

	_, err = r.Get(ctx, "projectB-2")
	require.ErrorIs(t, err, tickets.ErrNotFound)
	_, err = r.Get(ctx, "nonsense")
	require.Error(t, err)
	require.Error(t, r.Open(ctx, &tickets.Ticket{Project: "with-dash"}))
}

func TestOpenConcurrent(t *testing.T) {
	t.Parallel()
	r := newRepository(t)
	ctx := context.Background()
	const goroutines, each = 8, 25
	var mu sync.Mutex
	opened := map[string]string{} // id -> title
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tk := &tickets.Ticket{Project: "busy", Title: fmt.Sprintf("writer %d ticket %d", g, i)}
				if err := r.Open(ctx, tk); err != nil {
					t.Errorf("Open: %v", err)
					return
				}
				mu.Lock()
				opened[tk.ID()] = tk.Title
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	count, err := r.Count(ctx, "busy")
	require.NoError(t, err)
	require.Equal(t, int64(goroutines*each), count, "Count()")
	for n := 1; n <= goroutines*each; n++ {
		id := fmt.Sprintf("busy-%d", n)
		title, ok := opened[id]
		require.True(t, ok, "%s was not handed out", id)
		got, err := r.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, title, got.Title, "title of %s", id)
	}
	empty, err := r.Count(ctx, "quiet")
	require.NoError(t, err)
	assert.Zero(t, empty)
}

func TestList(t *testing.T) {
	t.Parallel()
	r := newRepository(t)
	ctx := context.Background()
	for i := range 5 {
		require.NoError(t, r.Open(ctx, &tickets.Ticket{Project: "projectA", Title: fmt.Sprintf("title %d", i+1)}))
	}
	var ids []string
	pages := 0
	for before := int64(0); ; {
		page, next, err := r.List(ctx, "projectA", before, 2)
		require.NoError(t, err)
		pages++
		for _, tk := range page {
			assert.Equal(t, fmt.Sprintf("title %d", tk.Number), tk.Title, "title of %s", tk.ID())
			ids = append(ids, tk.ID())
		}
		if next == 0 {
			break
		}
		before = next
	}
	assert.Equal(t, []string{"projectA-5", "projectA-4", "projectA-3", "projectA-2", "projectA-1"}, ids)
	assert.Equal(t, 3, pages, "pages of 2")
	_, err := r.Get(ctx, "projectA-0")
	require.Error(t, err)
}
