/**
 * The settings the KVM backends share: records bound from configuration whose compact constructors
 * apply defaults and reject what cannot work, naming the setting.
 */
package dev.egressproxies.kvm.common.config;
