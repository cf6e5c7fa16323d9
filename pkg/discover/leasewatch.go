package discover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	toolswatch "k8s.io/client-go/tools/watch"
	"k8s.io/client-go/util/connrotation"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// IdentityLease is one kube-apiserver identity lease as the lease watch reports it.
type IdentityLease struct {
	Name     string // apiserver-<hash>: the server ID
	Hostname string // kubernetes.io/hostname label
	Address  string // kubernetes.io/peer-advertise-address annotation
	Holder   string
	Renew    time.Time     // zero when never renewed
	Duration time.Duration // spec.leaseDurationSeconds
}

// LeaseWatch follows the identity leases in kube-system with a Kubernetes watch (list, then
// watch from the list's resourceVersion), through the kubeconfig's server.
type LeaseWatch struct {
	// Config is the client config (the kubeconfig's: the server the leases are listed through).
	Config *rest.Config
	// OnLeases hears the whole set of identity leases, sorted by name, after each (re)list
	// and after each change.
	OnLeases func([]IdentityLease)
	// OnFailure hears that the watch could not be established, or broke, and when it is
	// tried again; OnRecovered that it works again. Errors are one line, credentials removed.
	OnFailure   func(err error, retryIn time.Duration)
	OnRecovered func()
	// OnEstablished, when set, hears each watch request the server accepted: one every
	// WatchTimeout while the watch works, changes or not.
	OnEstablished func()
	// MinBackoff and MaxBackoff bound the wait before a new attempt (doubling from the
	// first); defaults 500ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// WatchTimeout asks the server to end each watch request after this long; the watch is
	// then started again from where it was (DefaultLeaseWatchTimeout when zero). It is short
	// on purpose: a gracefully stopping kube-apiserver waits for its long-running requests,
	// up to 60s, before it exits — measured in the e2e test: a lease watch of 5 minutes held
	// every stop of a rolling upgrade for the full 60s. Each request also ends when the
	// server's connection goes away.
	WatchTimeout time.Duration
}

// DefaultLeaseWatchTimeout bounds one watch request: how long a watch can hold up a
// graceful stop of the server it goes to.
const DefaultLeaseWatchTimeout = 2 * time.Second

// Run watches until ctx ends.
func (w *LeaseWatch) Run(ctx context.Context) {
	minB, maxB := w.MinBackoff, w.MaxBackoff
	if minB <= 0 {
		minB = 500 * time.Millisecond
	}
	if maxB < minB {
		maxB = max(30*time.Second, minB)
	}
	var red redact.Redactor
	red.Add(w.Config)
	rc, conns, err := leaseClient(w.Config)
	if err != nil {
		w.OnFailure(errors.New(red.Clean(err.Error())), 0)
		return
	}
	backoff, failing := minB, false
	for ctx.Err() == nil {
		err := w.once(ctx, rc, func() {
			if failing {
				failing = false
				if w.OnRecovered != nil {
					w.OnRecovered()
				}
			}
			backoff = minB
			if w.OnEstablished != nil {
				w.OnEstablished()
			}
		})
		if ctx.Err() != nil {
			return
		}
		if err == errRelist {
			continue
		}
		failing = true
		// The next attempt dials anew: a balancer that went quiet keeps the connection
		// open, and an HTTP/2 client would send every request on it until its health
		// check gives up on it (45s).
		conns.CloseAll()
		w.OnFailure(errors.New(red.Clean(apiclient.OneLine(err.Error()))), backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxB)
	}
}

// errRelist: the watch's resourceVersion is too old (410 Gone): list again at once.
var errRelist = errors.New("relist")

// once lists the leases, then follows them with client-go's RetryWatcher from the list's
// resourceVersion until the watch cannot go on; established is called each time a watch
// request was accepted. The RetryWatcher starts each watch request again from the last
// resourceVersion it saw (bookmarks included) when the server ends it (timeoutSeconds) and
// retries errors in the stream; a 410 makes it stop, and so does any error establishing a
// watch request (watchLeases): then the leases are listed again, at once after a 410, after
// the backoff otherwise.
func (w *LeaseWatch) once(ctx context.Context, rc *rest.RESTClient, established func()) error {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	var list coordinationv1.LeaseList
	err := rc.Get().Namespace(leaseNamespace).Resource("leases").
		Param("labelSelector", identityLabel+"="+identityLabelValue).Do(lctx).Into(&list)
	cancel()
	if err != nil {
		return fmt.Errorf("list leases: %w", describeStatus(err))
	}
	set := map[string]IdentityLease{}
	for i := range list.Items {
		l := identityLeaseOf(&list.Items[i])
		set[l.Name] = l
	}
	w.OnLeases(sortedLeases(set))

	// The RetryWatcher logs through the context's logger: its words stay out of stderr, what
	// went wrong reaches OnFailure.
	wctx, stop := context.WithCancelCause(logr.NewContext(ctx, logr.Discard()))
	defer stop(nil)
	rw, err := toolswatch.NewRetryWatcherWithContext(wctx, list.ResourceVersion, w.watchLeases(rc, established, stop))
	if err != nil {
		return fmt.Errorf("watch leases: %w", err)
	}
	defer rw.Stop()
	for ev := range rw.ResultChan() {
		switch ev.Type {
		case watch.Error:
			err := apierrors.FromObject(ev.Object)
			if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
				return errRelist
			}
			return fmt.Errorf("watch leases: %w", describeStatus(err))
		case watch.Added, watch.Modified, watch.Deleted:
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok {
				return fmt.Errorf("watch leases: got a %T, want a Lease", ev.Object)
			}
			il := identityLeaseOf(l)
			if ev.Type == watch.Deleted {
				delete(set, il.Name)
			} else {
				if set[il.Name] == il {
					continue
				}
				set[il.Name] = il
			}
			w.OnLeases(sortedLeases(set))
		}
	}
	if err := context.Cause(wctx); err != nil && ctx.Err() == nil {
		return err // watchLeases stopped the RetryWatcher
	}
	return nil
}

// watchLeases starts one watch request for the RetryWatcher. The server ends it after
// WatchTimeout; the client, quietSlack later, in case the server does not: then the
// connection went quiet, a failure (stop). A request the server
// refuses stops the RetryWatcher (stop), with errRelist for a 410: the RetryWatcher would
// retry it from the same resourceVersion for ever.
func (w *LeaseWatch) watchLeases(rc *rest.RESTClient, established func(), stop context.CancelCauseFunc) cache.WatcherWithContext {
	timeout := w.WatchTimeout
	if timeout <= 0 {
		timeout = DefaultLeaseWatchTimeout
	}
	quiet := fmt.Errorf("watch leases: no answer within %s, though the server was asked to end the request after %s: the connection went quiet", timeout+quietSlack, timeout)
	return &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		ctx, cancel := context.WithTimeoutCause(context.WithValue(ctx, leaseWatchStopKey{}, stop), timeout+quietSlack, quiet)
		// A request that outlives the server's own end of it is on a connection that went
		// quiet (a balancer that lost its backend and kept the connection): client-go would
		// take its end for a normal one and watch again, on the same connection, saying
		// nothing. It is a failure: said, and the next attempt dials anew.
		context.AfterFunc(ctx, func() {
			if context.Cause(ctx) == quiet {
				stop(quiet)
			}
		})
		wi, err := rc.Get().Namespace(leaseNamespace).Resource("leases").
			Param("labelSelector", identityLabel+"="+identityLabelValue).
			Param("watch", "true").Param("resourceVersion", opts.ResourceVersion).Param("allowWatchBookmarks", "true").
			Param("timeoutSeconds", strconv.Itoa(max(1, int(timeout.Seconds())))).Watch(ctx)
		if err != nil {
			cancel()
			if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
				stop(errRelist)
			} else {
				stop(fmt.Errorf("watch leases: %w", describeStatus(err)))
			}
			return nil, err
		}
		// Established only now: a user may list the leases and not watch them.
		established()
		return stopCancels{wi, cancel}, nil
	}}
}

// quietSlack is how long past the server's end of a watch request (timeoutSeconds) the
// client waits for it before it counts the connection as quiet.
const quietSlack = 5 * time.Second

// stopCancels is a watch whose Stop also ends its request's context.
type stopCancels struct {
	watch.Interface
	cancel context.CancelFunc
}

func (s stopCancels) Stop() {
	s.Interface.Stop()
	s.cancel()
}

// describeStatus words an API status error as one line naming what to do for RBAC.
func describeStatus(err error) error {
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w (grant list and watch on leases in kube-system, see deploy/rbac)", err)
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Code == http.StatusNotFound {
		return fmt.Errorf("%w (no coordination.k8s.io/v1 leases API?)", err)
	}
	return err
}

// identityLeaseOf reads a lease as the snapshot records it (Snapshot.EscapeText): a hostname
// holding control characters names its server as the snapshot does, escaped.
func identityLeaseOf(l *coordinationv1.Lease) IdentityLease {
	il := IdentityLease{Name: snapshot.ServerNameText(l.Name), Hostname: snapshot.ServerNameText(l.Labels[hostnameLabel]),
		Address: textsafe.Visible(l.Annotations[peerAddressAnnotation])}
	if l.Spec.HolderIdentity != nil {
		il.Holder = textsafe.Visible(*l.Spec.HolderIdentity)
	}
	if l.Spec.RenewTime != nil {
		il.Renew = l.Spec.RenewTime.UTC()
	}
	if l.Spec.LeaseDurationSeconds != nil {
		il.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return il
}

func sortedLeases(set map[string]IdentityLease) []IdentityLease {
	out := make([]IdentityLease, 0, len(set))
	for _, l := range set {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// leaseClient is a REST client for coordination.k8s.io/v1 that knows only leases: the
// clientset would register every API group for one resource. Its connections are its own
// (conns): a failed attempt closes them all, and the next one dials anew.
func leaseClient(base *rest.Config) (*rest.RESTClient, *connrotation.Dialer, error) {
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	cfg := rest.CopyConfig(base)
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	conns := connrotation.NewDialer(dial)
	cfg.Dial = conns.DialContext
	cfg.GroupVersion = &coordinationv1.SchemeGroupVersion
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.Timeout = 0 // a watch lasts: each request has its own deadline or timeoutSeconds
	cfg.Wrap(boundLeaseBodies)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(cfg)
	return rc, conns, err
}
