/**
 * The first KVM backend: {@link dev.egressproxies.kvm.KvmProviderFactory} (type {@code kvm}) builds
 * a {@link dev.egressproxies.kvm.KvmProvider} from a {@link dev.egressproxies.kvm.config.KvmConfig}.
 * VMs are libvirt domains on hypervisors reached over SSH; each boots a cached cloud image through
 * a qcow2 overlay, with cloud-init on a NoCloud seed ISO built in-process.
 */
package dev.egressproxies.kvm;
