package replay

import (
	"strings"
)

// span widens the span of the traffic read to the raw timestamp ts, without parsing the
// timestamps an apiserver writes (stampBefore).
func (r *replayer) span(ts string) {
	if ts == "" {
		return
	}
	utc := utcStamp(ts)
	if !utc && parseTimestamp(ts).IsZero() {
		return
	}
	before := func(a string, aUTC bool, b string, bUTC bool) bool {
		if aUTC && bUTC {
			return stampBefore(a, b)
		}
		return parseTimestamp(a).Before(parseTimestamp(b))
	}
	if r.first == "" || before(ts, utc, r.first, r.firstUTC) {
		r.first, r.firstUTC = ts, utc
	}
	if r.last == "" || before(r.last, r.lastUTC, ts, utc) {
		r.last, r.lastUTC = ts, utc
	}
}

// stampBefore reports whether a is before b, two timestamps of the UTC form an apiserver
// writes (utcStamp: "2026-11-23T09:36:23.1234Z", any number of fraction digits), by
// comparing their strings.
func stampBefore(a, b string) bool {
	if a[:19] != b[:19] {
		return a[:19] < b[:19]
	}
	fa, fb := strings.TrimPrefix(a[19:len(a)-1], "."), strings.TrimPrefix(b[19:len(b)-1], ".")
	for i := 0; i < len(fa) || i < len(fb); i++ {
		da, db := byte('0'), byte('0')
		if i < len(fa) {
			da = fa[i]
		}
		if i < len(fb) {
			db = fb[i]
		}
		if da != db {
			return da < db
		}
	}
	return false
}

// utcStamp says whether s has the shape of an RFC 3339 UTC timestamp with digits where they
// belong: 2026-11-23T09:36:23Z, with or without a fraction of a second.
func utcStamp(s string) bool {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || (len(s) > 20 && s[19] != '.') {
		return false
	}
	for i := 0; i < len(s)-1; i++ {
		if c := s[i]; (c < '0' || c > '9') && i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && i != 19 {
			return false
		}
	}
	return true
}
