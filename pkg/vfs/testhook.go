package vfs

import (
	"context"
	"fmt"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

type failAfterKey struct{}

// FailAfter is a TEST HOOK. It returns a context under which every Commit
// issues its first k write requests (k >= 0; one per Op) and then aborts
// the transaction — a real IndexedDB tx.abort(), or the memory backend
// rolling back the ops it already applied — and returns an Internal error
// with Reason ReasonInjected. Tests use it to prove a commit is all or
// nothing whichever write fails.
func FailAfter(ctx context.Context, k int) context.Context {
	return context.WithValue(ctx, failAfterKey{}, k)
}

// injectedFailure returns how many ops a commit of n ops under ctx may
// issue before it must abort, and whether it must.
func injectedFailure(ctx context.Context, n int) (issue int, fail bool) {
	k, ok := ctx.Value(failAfterKey{}).(int)
	if !ok {
		return n, false
	}
	return min(max(k, 0), n), true
}

func errInjected(subject string, k int) error {
	return &skillerr.Error{Code: skillerr.Internal, Reason: ReasonInjected, Subject: subject,
		Msg: fmt.Sprintf("commit aborted after %d writes by the FailAfter test hook", k)}
}
