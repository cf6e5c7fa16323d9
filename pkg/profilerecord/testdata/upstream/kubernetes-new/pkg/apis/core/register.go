package core

const GroupName = ""
