package gizmo

type gizmoStatusStrategy struct{}

func (gizmoStatusStrategy) NamespaceScoped() bool {
	return false
}

type gizmoStrategy struct{}

func NewStrategy() gizmoStrategy { return gizmoStrategy{} }

func (gizmoStrategy) NamespaceScoped() bool {
	return true
}
