
8
DeviceIndexDeviceIndex*
device_names

CPUCPU"ª