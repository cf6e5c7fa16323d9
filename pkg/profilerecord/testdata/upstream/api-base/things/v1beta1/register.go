package v1beta1

const GroupName = "things.example.io"
