package snapshot

import (
	"errors"
	"fmt"
)

// MaxRequestCountRows bounds a server's request counts (servers[].requests.counts): one row per
// resource, subresource and verb. A live read keeps at most this many series of
// apiserver_request_total (internal/apimetrics' MaxSeries), and rows are sums of series, so a
// snapshot mvpctl wrote never holds more; a file that does is refused while it is decoded,
// before the rest of it costs memory.
const MaxRequestCountRows = 50_000

// maxRequestCountRows is the bound the decoder and validation apply (tests lower it).
var maxRequestCountRows = MaxRequestCountRows

var errTooManyRequestCounts = fmt.Errorf("a server's request counts hold more than %d rows (servers[].requests.counts; a read of /metrics keeps at most %d series): not a snapshot mvpctl wrote", MaxRequestCountRows, MaxRequestCountRows)

// checkRequestCountRows is the bound for snapshots the generated decoder did not take.
func (s *Snapshot) checkRequestCountRows() error {
	for _, srv := range s.Servers {
		if srv.Requests != nil && len(srv.Requests.Counts) > maxRequestCountRows {
			return fmt.Errorf("server %s: %w", srv.Name, errTooManyRequestCounts)
		}
	}
	return nil
}

// IsTooManyRequestCounts reports whether err is the refusal of a snapshot past MaxRequestCountRows.
func IsTooManyRequestCounts(err error) bool { return errors.Is(err, errTooManyRequestCounts) }
