"""Each games translation between its proto package and its rules packages values."""
