package mvp

import (
	"net/http"
	"strings"
)

// StatusOf is the HTTP status of an outcome key (OutcomeKey: not-found, unavailable/…) that
// the apiserver answers itself: 404 or 503. It is 0 for local and proxied, whose status is
// the serving handler's.
func StatusOf(key string) int {
	switch {
	case key == string(NotFound):
		return http.StatusNotFound
	case key == string(Unavailable) || strings.HasPrefix(key, string(Unavailable)+"/"):
		return http.StatusServiceUnavailable
	}
	return 0
}
