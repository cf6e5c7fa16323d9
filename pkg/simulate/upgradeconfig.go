package simulate

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// An upgraded server's runtime configuration, resolved once from its sources: the step, the
// flags its installer states, what it serves before the upgrade, or the new binary's default.

// configSource is where a part of an upgraded server's configuration comes from.
type configSource int

const (
	// sourceDefault: the new binary's own default (no flag).
	sourceDefault configSource = iota
	// sourceStep: the step gives it (upgrade:a=1.37,runtime-config=...).
	sourceStep
	// sourceStated: the installer states it (snapshot.Server.Stated), read once.
	sourceStated
	// sourceObserved: inferred from what the server serves before the upgrade.
	sourceObserved
)

// upgradeConfig is an upgraded server's runtime configuration, resolved once: its
// --runtime-config and its peer-proxy flags, each with where it comes from.
type upgradeConfig struct {
	RuntimeConfig mvp.RuntimeConfig
	// Runtime is where RuntimeConfig comes from: the step, the stated flags, what the server
	// serves (Observed), or the default (none of them, or "default" in the step).
	Runtime configSource
	// Proxy is where the gate and the filter come from: stated (stated), or the server's own.
	Proxy configSource
	// stated are the stated flags on the new version, when Proxy is sourceStated.
	stated mvp.StatedProxy
	// Observed is the inference, when Runtime is sourceObserved or the inference failed.
	Observed *ObservedConfig
}

// runtimeChoice is a --runtime-config and where it comes from.
type runtimeChoice struct {
	config mvp.RuntimeConfig
	source configSource
}

// statedFlags are a server's stated flags (snapshot.Server.Stated) read once for one binary
// version: ok when they are stated and readable, err when they are stated and are not.
type statedFlags struct {
	proxy mvp.StatedProxy
	ok    bool
	err   error
}

// statedOn reads srv's stated flags for binary version v (mvp.StatedProxyOf).
func statedOn(srv *snapshot.Server, v snapshot.Version) statedFlags {
	sp, ok, err := mvp.StatedProxyOf(srv.Stated, v)
	return statedFlags{proxy: sp, ok: ok && err == nil, err: err}
}

// resolveUpgradeConfig picks the configuration of server on its new version from its
// sources: the --runtime-config is the one the step asks for, else the one its installer
// states, else the one inferred from what it serves now (served), else the default; the gate
// and the filter are the stated ones when any are stated. Flags stated but unreadable are an
// error unless the step gives the --runtime-config.
func resolveUpgradeConfig(server string, asked *runtimeChoice, stated statedFlags, served servedSet) (upgradeConfig, error) {
	var cfg upgradeConfig
	if stated.ok {
		cfg.Proxy, cfg.stated = sourceStated, stated.proxy
	}
	switch {
	case asked != nil:
		cfg.RuntimeConfig, cfg.Runtime = asked.config, asked.source
	case stated.err != nil:
		return cfg, fmt.Errorf("%s: its stated flags (%s) cannot be read: %s", server, stated.proxy.Source, stated.err)
	case stated.ok:
		cfg.RuntimeConfig, cfg.Runtime = stated.proxy.RuntimeConfig, sourceStated
	default:
		obs := inferRuntimeConfig(served)
		cfg.Observed = &obs
		cfg.RuntimeConfig = obs.Config
		if obs.Unknown == "" {
			cfg.Runtime = sourceObserved
		}
	}
	return cfg, nil
}
