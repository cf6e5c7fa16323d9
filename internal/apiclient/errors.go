package apiclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/internal/textsafe"
)

// ErrorKind classifies a failed request, so callers and tests can tell failures apart without
// matching message text.
type ErrorKind string

// Error kinds. Each gets its own message and advice.
const (
	KindRefused      ErrorKind = "connection-refused"
	KindTimeout      ErrorKind = "timeout"
	KindUnreachable  ErrorKind = "unreachable"
	KindTLSAuthority ErrorKind = "tls-unknown-authority"
	KindTLSHostname  ErrorKind = "tls-hostname"
	KindTLS          ErrorKind = "tls"
	KindUnauthorized ErrorKind = "unauthorized"
	KindForbidden    ErrorKind = "forbidden"
	KindNotFound     ErrorKind = "not-found"
	KindStatus       ErrorKind = "http-status"
	KindRedirect     ErrorKind = "redirect"
	KindHTML         ErrorKind = "html"
	KindTruncated    ErrorKind = "truncated"
	KindContentType  ErrorKind = "content-type"
	KindInvalid      ErrorKind = "invalid-document"
	KindConfig       ErrorKind = "config"
)

// Error is one failed request to one server, worded for a person: what happened, and after
// " — " what to do about it. It never holds credentials: URLs carry no user info, bodies are
// not echoed beyond a Status message or an HTML title.
type Error struct {
	Kind ErrorKind
	// Method is the request's method; empty means GET.
	Method string
	// Base is the server's URL, Path the request path ("/apis").
	Base, Path string
	Msg        string
	// Code is the HTTP status when the server answered, else 0.
	Code int
	// Err is the underlying transport or decode error, if any.
	Err error
}

// Error names the full URL, so the message stands alone in a snapshot file or a log.
func (e *Error) Error() string { return e.method() + " " + e.Base + e.Path + ": " + e.Msg }

// Short names only the path, for lines that already name the server's URL.
func (e *Error) Short() string { return e.method() + " " + e.Path + ": " + e.Msg }

func (e *Error) method() string {
	if e.Method == "" {
		return "GET"
	}
	return e.Method
}

func (e *Error) Unwrap() error { return e.Err }

// TransportError words an error from http.Client.Do.
func TransportError(base, path string, timeout time.Duration, err error) *Error {
	e := &Error{Base: base, Path: path, Err: err}
	var (
		unknownCA  x509.UnknownAuthorityError
		hostname   x509.HostnameError
		invalid    x509.CertificateInvalidError
		recordErr  tls.RecordHeaderError
		dnsErr     *net.DNSError
		verifyErr  *tls.CertificateVerificationError
		netErr     net.Error
		alertError tls.AlertError
		netOp      *net.OpError
	)
	switch {
	case errors.Is(err, context.Canceled):
		e.Kind = KindTimeout
		e.Msg = "interrupted before an answer came"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		e.Kind = KindTimeout
		e.Msg = fmt.Sprintf("no answer within %s — the server is overloaded or a firewall drops the traffic; raise --timeout or check the address", timeout)
	case errors.As(err, &netOp) && netOp.Op == "proxyconnect":
		// net/http marks every failure to go through the proxy so: the apiserver was never
		// reached, and is not to blame.
		e.Kind = KindUnreachable
		e.Msg = fmt.Sprintf("the proxy (the kubeconfig's proxy-url, or HTTPS_PROXY) did not let the request through (%s) — the apiserver was not reached; check the proxy", OneLine(netOp.Err.Error()))
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = KindRefused
		e.Msg = "connection refused — nothing listens there: the apiserver is down or the address is wrong"
	case errors.As(err, &unknownCA):
		e.Kind = KindTLSAuthority
		e.Msg = "TLS: certificate signed by unknown authority — pass --certificate-authority or --tls-server-name"
	case errors.As(err, &hostname):
		e.Kind = KindTLSHostname
		e.Msg = fmt.Sprintf("TLS: the serving certificate is not valid for %q (it names %s) — pass --tls-server-name with one of those", hostname.Host, certNames(hostname.Certificate))
	case errors.As(err, &invalid):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS: %s — check the server's serving certificate and --certificate-authority", OneLine(invalid.Error()))
	case errors.As(err, &verifyErr):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS: %s — check --certificate-authority", OneLine(verifyErr.Err.Error()))
	case strings.Contains(err.Error(), "getting credentials: "):
		// client-go's exec or auth-provider plugin failed before the request was sent: a
		// kubeconfig problem, not the server's. Its own output is not repeated (secrets).
		// client-go formats this error with %v (exec.go, refreshCredsLocked): no type to ask.
		e.Kind = KindConfig
		e.Msg = fmt.Sprintf("the kubeconfig's credential plugin failed (%s) — run it by hand to see why", Clip(credentialReason(err), 160))
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"): // net/http's, unexported
		e.Kind = KindTLS
		e.Msg = "TLS handshake failed: the address does not speak HTTPS, it answered in plain HTTP — check the port, or use an http:// URL if that is really intended"
	case errors.As(err, &recordErr):
		e.Kind = KindTLS
		e.Msg = "TLS handshake failed: the address does not speak HTTPS (plain HTTP?) — check the address and port"
	case errors.As(err, &alertError) || strings.Contains(err.Error(), "tls: "):
		e.Kind = KindTLS
		e.Msg = fmt.Sprintf("TLS handshake failed: %s — the server may require a client certificate; check the kubeconfig user", tlsReason(err))
	case errors.As(err, &dnsErr):
		e.Kind = KindUnreachable
		e.Msg = fmt.Sprintf("cannot resolve host %q — check the address", dnsErr.Name)
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		e.Kind = KindUnreachable
		e.Msg = "no route to the address — it is not reachable from here (a node IP seen from outside the cluster network?); use --endpoint or --contexts"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		e.Kind = KindUnreachable
		e.Msg = "the connection was closed before an answer came — a proxy or firewall cut it, or the server is restarting"
	default:
		e.Kind = KindUnreachable
		e.Msg = fmt.Sprintf("%s — check the address", innermost(err))
	}
	return e
}

// StatusError words a non-200 answer.
func StatusError(base, path string, code int, contentType string, body []byte) *Error {
	e := &Error{Base: base, Path: path, Code: code}
	detail := StatusDetail(contentType, body)
	switch code {
	case http.StatusUnauthorized:
		e.Kind = KindUnauthorized
		e.Msg = "401 Unauthorized: the server rejected the credentials — check the kubeconfig user (expired token or certificate?)"
	case http.StatusForbidden:
		e.Kind = KindForbidden
		e.Msg = "403 Forbidden" + detail + " — grant the RBAC listed in docs/snapshot.md"
	case http.StatusNotFound:
		e.Kind = KindNotFound
		e.Msg = "404 Not Found" + detail + " — is this a kube-apiserver?"
	default:
		e.Kind = KindStatus
		e.Msg = fmt.Sprintf("HTTP %d %s%s", code, http.StatusText(code), detail)
		if code >= 500 {
			e.Msg += " — the server or a proxy in front of it failed; retry, or read its log"
		}
	}
	return e
}

// StatusDetail is ": <message>" from a Kubernetes Status body, ": HTML page <title>" from a
// proxy's error page, or "" — never more than one short line of the body.
func StatusDetail(contentType string, body []byte) string {
	// The title is escaped already (HTMLTitle): %q would escape its backslashes again.
	if IsHTML(contentType, body) {
		if t := HTMLTitle(body); t != "" {
			return fmt.Sprintf(": HTML page \"%s\" (from a load balancer or proxy?)", t)
		}
		return ": HTML page (from a load balancer or proxy?)"
	}
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Message != "" {
		return ": " + Clip(OneLine(st.Message), 200)
	}
	return ""
}

func RedirectError(base, path string, code int, location string) *Error {
	where := "elsewhere"
	if location != "" {
		// The query may hold a login token; the scheme and host say enough.
		where = location
		if i := strings.IndexAny(where, "?#"); i >= 0 {
			where = where[:i]
		}
	}
	return &Error{Base: base, Path: path, Code: code, Kind: KindRedirect,
		Msg: fmt.Sprintf("HTTP %d redirect to %s — a proxy or login page answered, not the apiserver; point at the apiserver itself", code, where)}
}

func HTMLError(base, path string, body []byte) *Error {
	msg := "got an HTML page instead of JSON"
	if t := HTMLTitle(body); t != "" {
		msg = fmt.Sprintf("got an HTML page (\"%s\") instead of JSON", t)
	}
	return &Error{Base: base, Path: path, Code: http.StatusOK, Kind: KindHTML,
		Msg: msg + " — a load balancer, proxy or login page answered; point --endpoint at the apiserver itself"}
}

func ContentTypeError(base, path, got, want string) *Error {
	if got == "" {
		got = "none"
	}
	return &Error{Base: base, Path: path, Code: http.StatusOK, Kind: KindContentType,
		Msg: fmt.Sprintf("200 with Content-Type %q, want %s — something between mvpctl and the apiserver rewrote the response (a proxy?)", got, want)}
}

// DecodeError words a body that did not decode; a cut-off body is named as such. The JSON
// decoders say "unexpected end" only in their messages (a *json.SyntaxError, or a plain error
// from goccy/go-json and the apimachinery decoders): no type tells a cut-off body apart.
func DecodeError(base, path string, size int, err error) *Error {
	if stalled, ok := err.(*Error); ok && stalled.Kind == KindTimeout {
		return stalled // a body that stalled: the timeout's own words (Client.Do)
	}
	var syn *json.SyntaxError
	if errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end")) || strings.Contains(err.Error(), "unexpected end of JSON input") {
		return &Error{Base: base, Path: path, Code: http.StatusOK, Kind: KindTruncated, Err: err,
			Msg: fmt.Sprintf("the JSON body is truncated after %d bytes — the connection was cut or a proxy limits the response size; retry", size)}
	}
	return &Error{Base: base, Path: path, Code: http.StatusOK, Kind: KindInvalid, Err: err,
		Msg: fmt.Sprintf("not a valid document: %s", Clip(OneLine(err.Error()), 200))}
}

func InvalidDoc(base, path, msg string) *Error {
	return &Error{Base: base, Path: path, Code: http.StatusOK, Kind: KindInvalid, Msg: msg}
}

func IsHTML(contentType string, body []byte) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/html") {
		return true
	}
	head := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

func HTMLTitle(body []byte) string {
	m := titleRE().FindSubmatch(body[:min(len(body), 64<<10)])
	if m == nil {
		return ""
	}
	return Clip(OneLine(string(m[1])), 80)
}

func certNames(c *x509.Certificate) string {
	if c == nil {
		return "no names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	if len(names) == 0 {
		return "no names"
	}
	return strings.Join(names, ", ")
}

// credentialReason is what client-go says of a failed credential plugin, after "getting
// credentials: " (e.g. "exec: executable /usr/bin/x failed with exit code 1").
func credentialReason(err error) string {
	s := OneLine(err.Error())
	if i := strings.Index(s, "getting credentials: "); i >= 0 {
		s = s[i+len("getting credentials: "):]
	}
	return s
}

// tlsReason keeps the part of a TLS error after "tls: ", e.g. "certificate required".
func tlsReason(err error) string {
	s := innermost(err)
	if i := strings.LastIndex(s, "tls: "); i >= 0 {
		return s[i:]
	}
	return s
}

// innermost drops the "Get \"url\": " wrappers that net/http adds.
func innermost(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return OneLine(err.Error())
		}
		err = u
	}
}

// OneLine folds s onto one line and escapes the control characters left (an escape sequence
// in a server's message would otherwise reach the terminal: title change, screen clear).
func OneLine(s string) string { return EscapeControl(strings.Join(strings.Fields(s), " ")) }

// EscapeControl replaces control characters (C0, DEL, C1), text-direction controls and
// invalid UTF-8 with Go escapes (\x1b), so text from a server or a file prints as text: the
// one rule, textsafe's.
func EscapeControl(s string) string { return textsafe.Visible(s) }

func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
