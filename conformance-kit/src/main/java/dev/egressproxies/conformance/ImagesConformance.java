package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.PulledImage;
import dev.egressproxies.api.conformance.Capability;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The conformance cases of base images ({@code images}, {@code pullImage}, {@code pruneImages}),
 * with {@link Capability#MANAGES_IMAGES}: an instance's base is listed with the instance as its
 * user, prune never deletes a base in use, a dry run deletes nothing, a pull is idempotent. Without
 * it, each of the three calls is PERMANENT.
 */
abstract class ImagesConformance extends ConformanceGroup {

    ImagesConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void anInstancesBaseIsListedWithTheInstanceAsItsUser() throws Throwable {
        dependingOn(Capability.MANAGES_IMAGES, () -> {
            String name = names().name("user");
            session().create(session().request(name));

            Optional<BaseImage> base = baseUsedBy(name);

            assertThat(base).as("a base image of zone '%s' that %s backs on, among %s", zone(), name,
                    provider().images(zone(), session().deadline())).isPresent();
            assertThat(base.get().zone()).isEqualTo(zone());
            assertThat(base.get().unused()).isFalse();
        }, () -> assertRefused(Operation.IMAGES, () -> provider().images(zone(), session().deadline())));
    }

    @Test
    void pruneNeverDeletesABaseInUse() throws Throwable {
        dependingOn(Capability.MANAGES_IMAGES, () -> {
            String name = names().name("kept");
            session().create(session().request(name));
            String base = baseUsedBy(name).orElseThrow().name();

            List<String> pruned = provider().pruneImages(zone(), Duration.ZERO, false, session().deadline()).stream()
                    .map(image -> image.name()).toList();

            assertThat(pruned).as("bases pruned in zone '%s'", zone()).doesNotContain(base);
            assertThat(baseUsedBy(name)).as("the base %s backs on, after the prune", name).isPresent();
        }, () -> assertRefused(Operation.PRUNE_IMAGES,
                () -> provider().pruneImages(zone(), Duration.ZERO, false, session().deadline())));
    }

    @Test
    void aDryRunDeletesNothing() throws Throwable {
        dependingOn(Capability.MANAGES_IMAGES, () -> {
            provider().pullImage(target().primaryPlacement().image(), zone(), session().deadline());
            List<String> before = baseNames();

            provider().pruneImages(zone(), Duration.ZERO, true, session().deadline());

            assertThat(baseNames()).as("bases of zone '%s' after a dry run", zone()).containsAll(before);
        }, () -> assertRefused(Operation.PRUNE_IMAGES,
                () -> provider().pruneImages(zone(), Duration.ZERO, true, session().deadline())));
    }

    @Test
    void aPullIsIdempotent() throws Throwable {
        String image = target().primaryPlacement().image();
        dependingOn(Capability.MANAGES_IMAGES, () -> {
            PulledImage first = provider().pullImage(image, zone(), session().deadline());

            PulledImage second = provider().pullImage(image, zone(), session().deadline());

            assertThat(second.fetched()).as("whether the second pull of %s fetched it", image).isFalse();
            assertThat(second.name()).isEqualTo(first.name());
            assertThat(baseNames()).as("bases of zone '%s' after the pulls", zone()).contains(first.name());
        }, () -> assertRefused(Operation.PULL_IMAGE, () -> provider().pullImage(image, zone(), session().deadline())));
    }

    /** The primary placement's zone, or the first zone when it names none. */
    private String zone() {
        String zone = target().primaryPlacement().zone();
        if (zone.isEmpty() && !provider().zones().isEmpty()) {
            return provider().zones().get(0);
        }
        return zone;
    }

    private Optional<BaseImage> baseUsedBy(String name) {
        return provider().images(zone(), session().deadline()).stream()
                .filter(base -> base.users().contains(name)).findFirst();
    }

    private List<String> baseNames() {
        return provider().images(zone(), session().deadline()).stream().map(BaseImage::name).toList();
    }

    private static void assertRefused(Operation operation, Executable call) {
        ProviderException error = ProviderErrors.thrownBy(operation + " of a backend that declares no "
                + Capability.MANAGES_IMAGES, call);
        assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).as("operation of: %s", error.getMessage()).isEqualTo(operation);
    }
}
