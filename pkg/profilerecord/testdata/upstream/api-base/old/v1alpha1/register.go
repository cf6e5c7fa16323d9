package v1alpha1

const GroupName = "old.example.io"
