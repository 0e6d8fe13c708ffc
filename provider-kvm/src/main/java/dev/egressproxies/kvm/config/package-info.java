/**
 * The settings of a {@code kvm} provider entry, bound from configuration by the platform: records
 * whose compact constructors apply the defaults and reject what cannot work, naming the setting.
 * Open to reflection, because the platform constructs them reflectively.
 */
package dev.egressproxies.kvm.config;
