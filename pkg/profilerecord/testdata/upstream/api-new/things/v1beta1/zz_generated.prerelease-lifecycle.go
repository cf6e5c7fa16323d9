package v1beta1

func (in *Widget) APILifecycleIntroduced() (major, minor int) {
	return 1, 30
}

func (in *Widget) APILifecycleRemoved() (major, minor int) {
	return 1, 38
}

func (in *WidgetList) APILifecycleRemoved() (major, minor int) {
	return 1, 38
}

func (in *Gadget) APILifecycleRemoved() (major, minor int) {
	return 1, 39
}

func (in *Gizmo) APILifecycleIntroduced() (major, minor int) {
	return 1, 38
}
