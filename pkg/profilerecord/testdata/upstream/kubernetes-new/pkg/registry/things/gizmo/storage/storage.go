package storage

import (
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/kubernetes/pkg/apis/things"
	"k8s.io/kubernetes/pkg/registry/things/gizmo"
)

type REST struct {
	*genericregistry.Store
}

func NewREST(optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error) {
	strategy := gizmo.NewStrategy()
	store := &genericregistry.Store{
		NewFunc:        func() runtime.Object { return &things.Gizmo{} },
		NewListFunc:    func() runtime.Object { return &things.GizmoList{} },
		CreateStrategy: strategy,
	}
	return &REST{store}, &StatusREST{store: store}, nil
}

type StatusREST struct {
	store *genericregistry.Store
}
