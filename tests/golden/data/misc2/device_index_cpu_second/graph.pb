
8
DeviceIndexDeviceIndex*
device_names

GPUCPU"ª