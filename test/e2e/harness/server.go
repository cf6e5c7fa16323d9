package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// A server of the control plane and the raw requests tests send it.

// Server is one running (or stopped) kube-apiserver of a ControlPlane.
type Server struct {
	ServerSpec
	Port       int    // secure port on 127.0.0.1 (also the peer-advertise port)
	URL        string // https://127.0.0.1:<Port>
	LeaseID    string // identity lease name = server ID, computed from Name
	Kubeconfig string // admin kubeconfig that talks to this server only
	LogPath    string
	Binary     string

	// HTTPClient talks to this server with the admin (system:masters) client cert and
	// verifies it against the server CA. It does not follow redirects.
	HTTPClient *http.Client

	cp      *ControlPlane
	mu      sync.Mutex
	proc    *proc
	started time.Time
}

// PID is the PID of the kube-apiserver process (the one `exec` kept), or 0 if it
// was never started.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.pid
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.exited()
}

// RestConfig returns a client-go config for this server with the admin cert.
func (s *Server) RestConfig() *rest.Config {
	p := s.cp.PKI
	return &rest.Config{
		Host:    s.URL,
		Timeout: 30 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: p.ServerCA, CertFile: p.AdminCert, KeyFile: p.AdminKey,
		},
	}
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string { return tailFile(s.LogPath, n) }

// Response is a raw HTTP observation.
type Response struct {
	StatusCode  int
	ContentType string
	Header      http.Header
	Body        []byte
}

func (r *Response) String() string {
	return fmt.Sprintf("%d %s %s", r.StatusCode, r.ContentType, strings.TrimSpace(string(r.Body)))
}

// Do sends one request to this server with the admin cert and reads the whole body.
func (s *Server) Do(ctx context.Context, method, path string, header http.Header, body io.Reader) (*Response, error) {
	return s.DoWith(ctx, s.HTTPClient, method, path, header, body)
}

// DoWith is Do with another client (e.g. one from ControlPlane.HTTPClientFor).
func (s *Server) DoWith(ctx context.Context, c *http.Client, method, path string, header http.Header, body io.Reader) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s%s: reading body: %w", method, s.Name, path, err)
	}
	return &Response{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Header: resp.Header, Body: b}, nil
}

// Get is Do with GET and optional header pairs ("Name", "value", ...).
func (s *Server) Get(ctx context.Context, path string, headerKV ...string) (*Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(headerKV); i += 2 {
		h.Add(headerKV[i], headerKV[i+1])
	}
	return s.Do(ctx, http.MethodGet, path, h, nil)
}
