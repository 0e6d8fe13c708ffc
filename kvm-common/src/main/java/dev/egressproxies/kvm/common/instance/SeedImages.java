package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import java.time.Clock;

/**
 * The builder of instances' NoCloud seed ISOs, in memory: the instance name as instance-id and
 * hostname, the request's user-data, and the entry's vendor-data, recorded at the clock's time.
 */
final class SeedImages {
    private final Clock clock;
    private final String vendorData;

    SeedImages(Clock clock, String vendorData) {
        this.clock = clock;
        this.vendorData = vendorData;
    }

    /**
     * The ISO image for the instance.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when the files cannot form a seed
     */
    byte[] build(String instanceName, String userData, Call call) {
        try {
            return NoCloudSeed.builder(instanceName).userData(userData).vendorData(vendorData).build()
                    .toIsoImage(clock);
        } catch (IllegalArgumentException invalid) {
            throw call.failure(ErrorKind.PERMANENT, "the NoCloud seed cannot be built: "
                    + invalid.getMessage() + "; shrink the cloud-init user-data or the entry's vendorData", invalid);
        }
    }
}
