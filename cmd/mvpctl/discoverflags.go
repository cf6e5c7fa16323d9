package main

// PLACEHOLDER: replaced by the live-discovery implementation (pkg/discover).

import (
	"context"
	"errors"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/spf13/pflag"
)

type discoverFlags struct{}

func (d *discoverFlags) addFlags(fs *pflag.FlagSet) {}

func (d *discoverFlags) discover(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	return nil, errors.New("live discovery is not implemented yet; pass --snapshot FILE")
}
