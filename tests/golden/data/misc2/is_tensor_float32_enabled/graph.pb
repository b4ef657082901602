
0
IsTensorFloat32EnabledIsTensorFloat32Enabled"ª