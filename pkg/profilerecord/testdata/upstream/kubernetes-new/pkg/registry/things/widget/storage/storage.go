package storage

import (
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/kubernetes/pkg/apis/things"
	"k8s.io/kubernetes/pkg/registry/things/widget"
)

type REST struct {
	*genericregistry.Store
}

func NewREST(optsGetter generic.RESTOptionsGetter) (*REST, error) {
	store := &genericregistry.Store{
		NewFunc:        func() runtime.Object { return &things.Widget{} },
		CreateStrategy: widget.Strategy,
	}
	return &REST{store}, nil
}
