/**
 * The settings of a {@code kvm2} provider entry, bound from configuration by the platform: records
 * whose compact constructors apply the defaults and reject what cannot work, naming the setting.
 * Hosts and machine types are kvm-common's shared records. Open to reflection, because the platform
 * constructs them reflectively.
 */
package dev.egressproxies.kvm2.config;
