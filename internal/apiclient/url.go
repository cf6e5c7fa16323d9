package apiclient

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrURLCredentials is NormalizeBase's error for a URL with user info: a caller must not echo
// such a URL (errors.Is).
var ErrURLCredentials = errors.New("the URL holds credentials; remove them (mvpctl uses the kubeconfig's)")

// NormalizeBase checks a server URL and returns it without user info, query or trailing
// slash ("https://" assumed when there is no scheme). A URL with user info is refused: mvpctl
// takes credentials from the kubeconfig, and echoing the URL back would print them.
func NormalizeBase(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text quotes the URL, which may hold credentials
			err = ue.Err
		}
		return "", fmt.Errorf("not a URL: %s", OneLine(err.Error()))
	}
	if u.User != nil {
		return "", ErrURLCredentials
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("scheme %q: want https", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("no host")
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// HostPort returns a URL's host:port, with the scheme's default port filled in ("https://"
// assumed when there is no scheme), normalised as NormAddr does, for matching against
// peer-advertise addresses.
func HostPort(raw string) string {
	u, err := url.Parse(withScheme(raw))
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return NormAddr(net.JoinHostPort(u.Hostname(), port))
}

// HostOnly returns a URL's host without port ("https://" assumed when there is no scheme),
// e.g. for a TLS server name.
func HostOnly(raw string) string {
	u, err := url.Parse(withScheme(raw))
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// NormAddr normalises an ip:port (or host:port) so "[::1]:6443" and "::1" forms compare; ""
// when there is no port.
func NormAddr(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil || port == "" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return net.JoinHostPort(host, port)
}

func withScheme(raw string) string {
	if !strings.Contains(raw, "://") {
		return "https://" + raw
	}
	return raw
}

func schemeOf(raw string) string {
	u, err := url.Parse(withScheme(raw))
	if err != nil {
		return ""
	}
	return u.Scheme
}
