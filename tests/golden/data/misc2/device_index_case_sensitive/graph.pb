
8
DeviceIndexDeviceIndex*
device_names

cpuCPU"ª