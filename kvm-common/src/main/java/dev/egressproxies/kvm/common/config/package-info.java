/**
 * The settings the KVM backends share, bound from configuration by the platform: records whose
 * compact constructors apply the defaults and reject what cannot work, naming the setting, and the
 * checks they are written with. Open to reflection, because the platform constructs them
 * reflectively.
 */
package dev.egressproxies.kvm.common.config;
