package things

const GroupName = "things.example.io"
