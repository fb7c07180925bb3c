#!/bin/bash
# make dkms-install and make dkms-uninstall for real, in the VM, whose root
# is an overlay in RAM: nothing reaches the host. Not in make check: dkms
# builds the module under TCG there (884 s on 2026-11-29, the machine
# shared); make check builds the same package on the host into build/dkms
# (make dkms-check) and test_dkms.sh loads that. Run by hand:
#
#   vm-images/run-vm --timeout 1800 -- tests/vm/dkms-install.sh
#
# It installs (dkms add, build, install for the running kernel), loads it
# with modprobe (depmod ran), runs a lossless qdisc, unloads it,
# uninstalls, and checks that neither the module nor its sources are left.
set -eu
export TC_LIB_DIR=$PWD/build/tc-plugins
modprobe veth
s=$(date +%s)
make --no-print-directory dkms-install JOBS=2
echo "TIME dkms-install $(( $(date +%s) - s )) s"
echo "modinfo -n: $(modinfo -n sch_lossless)"
ls -la /usr/src | grep lossless
modprobe sch_lossless
lsmod | grep sch_lossless
ip link add lla type veth peer name llb
ip link set lla up; ip link set llb up
tc qdisc add dev lla root lossless rate 100mbit
tc qdisc show dev lla
tc qdisc del dev lla root
rmmod sch_lossless
make --no-print-directory dkms-uninstall
if modinfo -n sch_lossless 2>/dev/null; then echo "FAIL: still installed"; exit 1; fi
ls /usr/src | grep lossless && { echo "FAIL: sources left"; exit 1; }
dkms status
echo "DKMS INSTALL/UNINSTALL OK"
