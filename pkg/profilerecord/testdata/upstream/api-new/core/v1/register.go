package v1

const GroupName = ""
