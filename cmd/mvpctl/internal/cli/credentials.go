package cli

import (
	"fmt"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ServerConfigs returns the kubeconfig's client config and, for each server, the config of
// its kubeconfig context as the snapshot recorded it (snapshot.Server.Context): the context
// whose credentials read the server is the one that sends it requests again (probe,
// traffic), with no guessing by address. contexts are --contexts, checked first. fromFile
// says what the command does with the servers of a --snapshot file ("probe sends requests
// to"), for the error without a kubeconfig; "" for a command without --snapshot.
func ServerConfigs(cf *kubeflags.Flags, contexts []string, fromFile string) (*rest.Config, func(*snapshot.Server) (*rest.Config, error), error) {
	for _, name := range contexts {
		if name = strings.TrimSpace(name); name != "" {
			if _, err := discover.ContextConfig(cf, name); err != nil {
				return nil, nil, fmt.Errorf("--contexts: %w", err)
			}
		}
	}
	if err := RequireKubeconfig(cf, ""); err != nil {
		if fromFile != "" {
			err = fmt.Errorf("%w (%s the apiservers, even those of a --snapshot file: it needs credentials)", err, fromFile)
		}
		return nil, nil, err
	}
	base, baseErr := cf.ToRESTConfig()
	current := discover.CurrentContext(cf)
	var mu sync.Mutex // probe asks for several servers at once
	byContext := map[string]*rest.Config{}
	configFor := func(s *snapshot.Server) (*rest.Config, error) {
		mu.Lock()
		defer mu.Unlock()
		if s.Context == "" || s.Context == current {
			if baseErr != nil {
				return nil, fmt.Errorf("kubeconfig: %w", baseErr)
			}
			return base, nil
		}
		if cfg := byContext[s.Context]; cfg != nil {
			return cfg, nil
		}
		cfg, err := discover.ContextConfig(cf, s.Context)
		if err != nil {
			return nil, fmt.Errorf("the snapshot read this server with kubeconfig %w", err)
		}
		byContext[s.Context] = cfg
		return cfg, nil
	}
	if baseErr != nil && len(contexts) == 0 {
		return nil, nil, fmt.Errorf("kubeconfig: %w (requests are sent, so credentials are needed even with --snapshot)", baseErr)
	}
	return base, configFor, nil
}
