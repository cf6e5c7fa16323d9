package discover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxLeaseAnswer bounds the lease list's answer (the whole of it, in discovery and in the
// lease watch) and each event of the lease watch: an identity lease is under a kilobyte, a
// control plane has a few. An event that never ends
// once grew to 1.5 GB in 15 s; now it is an error naming the bound, and the watch starts
// again after its backoff.
const MaxLeaseAnswer = 4 << 20

var leaseListTooLarge = fmt.Sprintf("the lease list is larger than %d MiB: not read (an identity lease is under 1 KiB)", MaxLeaseAnswer>>20)

// leaseWatchStopKey carries, in a watch request's context, the function that stops the
// RetryWatcher with a cause (LeaseWatch.once), so that an event over the bound is reported as
// the failure it is, not retried silently from the same resourceVersion for ever.
type leaseWatchStopKey struct{}

// boundLeaseBodies wraps the lease client's transport: every answer's body is cut with an
// error at MaxLeaseAnswer bytes without a newline (the apiserver ends the list, and each
// watch event, with one).
func boundLeaseBodies(rt http.RoundTripper) http.RoundTripper { return leaseBound{rt} }

type leaseBound struct{ rt http.RoundTripper }

func (b leaseBound) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	stop, _ := req.Context().Value(leaseWatchStopKey{}).(context.CancelCauseFunc)
	resp.Body = &lineBound{ReadCloser: resp.Body, limit: MaxLeaseAnswer, stop: stop}
	return resp, nil
}

// lineBound is a body that fails once more than limit bytes come without a newline, or, for a
// list (stop nil), once more than limit bytes come at all.
type lineBound struct {
	io.ReadCloser
	limit, run, total int
	stop              context.CancelCauseFunc // nil for a list
	err               error
}

func (l *lineBound) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.ReadCloser.Read(p)
	if l.total += n; l.stop == nil && l.total > l.limit {
		l.err = errors.New(leaseListTooLarge)
		return 0, l.err
	}
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		l.run = n - 1 - i
	} else {
		l.run += n
	}
	if l.run > l.limit {
		l.err = fmt.Errorf("an answer or event larger than %d MiB: not read (an identity lease is under 1 KiB)", l.limit>>20)
		if l.stop != nil {
			l.stop(fmt.Errorf("watch leases: %w", l.err))
		}
		return 0, l.err
	}
	return n, err
}
