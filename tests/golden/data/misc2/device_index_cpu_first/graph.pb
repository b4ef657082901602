
=
DeviceIndexDeviceIndex*!
device_names
CPUGPUTPU"ª