package v1

const GroupName = "things.example.io"
