
8
DeviceIndexDeviceIndex*
device_names

GPUTPU"ª