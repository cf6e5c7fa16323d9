package apiclient

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestClosedProxy: a proxy-url nothing listens on is named as the failure, never the
// apiserver (which was not reached).
func TestClosedProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxyAddr := ln.Addr().String()
	ln.Close() // closed: connection refused
	proxy, _ := url.Parse("http://" + proxyAddr)
	cfg := &rest.Config{Host: "https://192.0.2.10:6443", Proxy: http.ProxyURL(proxy)}
	c, err := New(cfg, cfg.Host, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "/version", "")
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !strings.Contains(msg, "the proxy (the kubeconfig's proxy-url, or HTTPS_PROXY) did not let the request through") ||
		!strings.Contains(msg, proxyAddr) || !strings.Contains(msg, "the apiserver was not reached") || strings.Contains(msg, "the apiserver is down") {
		t.Errorf("error %q: want the proxy %s named, not the apiserver", msg, proxyAddr)
	}
}
