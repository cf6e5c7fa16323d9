package review

import "k8s.io/kubernetes/pkg/apis/things"

type REST struct{}

func NewREST() *REST { return &REST{} }

func (r *REST) NamespaceScoped() bool {
	return false
}

func (r *REST) New() runtime.Object {
	return &things.Review{}
}

func (r *REST) Create(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	return obj, nil
}
