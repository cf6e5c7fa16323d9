package storage

import (
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/pod"
)

type PodStorage struct {
	Pod           *REST
	Status        *StatusREST
	Binding       *BindingREST
	LegacyBinding *LegacyBindingREST
}

type REST struct {
	*genericregistry.Store
}

func NewStorage(optsGetter generic.RESTOptionsGetter) (PodStorage, error) {
	store := &genericregistry.Store{
		NewFunc:        func() runtime.Object { return &api.Pod{} },
		CreateStrategy: pod.Strategy,
	}
	binding := &BindingREST{store: store}
	return PodStorage{Pod: &REST{store}, Status: &StatusREST{store: store}, Binding: binding, LegacyBinding: &LegacyBindingREST{binding}}, nil
}

type StatusREST struct {
	store *genericregistry.Store
}

type BindingREST struct {
	store *genericregistry.Store
}

func (r *BindingREST) NamespaceScoped() bool {
	return r.store.NamespaceScoped()
}

func (r *BindingREST) New() runtime.Object {
	return &api.Binding{}
}

func (r *BindingREST) Create(ctx context.Context, name string, obj runtime.Object) (runtime.Object, error) {
	return obj, nil
}

type LegacyBindingREST struct {
	bindingRest *BindingREST
}

func (r *LegacyBindingREST) NamespaceScoped() bool {
	return r.bindingRest.NamespaceScoped()
}

func (r *LegacyBindingREST) New() runtime.Object {
	return r.bindingRest.New()
}

func (r *LegacyBindingREST) Create(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	return r.bindingRest.Create(ctx, "", obj)
}
