package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.instance.EngineFixture.BASE_VOLUME;
import static dev.egressproxies.kvm.common.instance.EngineFixture.IMAGE;
import static dev.egressproxies.kvm.common.instance.EngineFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.common.instance.EngineFixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.BaseImage;
import dev.egressproxies.api.PrunedImage;
import dev.egressproxies.api.PulledImage;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The base images of a host as {@code egressctl images} sees and changes them: listed with the
 * domains that back on them, pulled as a create fetches them, pruned only when nothing backs on them
 * and no lease holds them; and a create that meets a prune backs on a base that exists.
 */
class BaseImagesTest {
    private static final String OLD = "old.0123456789abcdef.base.qcow2";
    private static final String LEGACY = "older.base.raw";
    private static final LeaseHolder ELSEWHERE = new LeaseHolder("other-machine", "boot-1", 4242, 1000);

    private final EngineFixture fixture = EngineFixture.oneHost();
    private final FakeLibvirtHost host = fixture.host();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void listsEachBaseWithTheDomainsThatBackOnItAndMarksTheUnusedAndLegacyOnes() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        fixture.create("proxy-2");
        putBase(OLD);
        putBase(LEGACY);

        List<BaseImage> images = fixture.engine.images("host-1", Requests.deadline());

        assertThat(images).extracting(BaseImage::name).containsExactly(BASE_VOLUME, OLD, LEGACY);
        BaseImage used = images.get(0);
        assertThat(used.users()).containsExactly("proxy-1", "proxy-2");
        assertThat(used.key()).isEqualTo(IMAGE);
        assertThat(used.format()).isEqualTo("qcow2");
        assertThat(used.zone()).isEqualTo("host-1");
        assertThat(images.get(1).unused()).isTrue();
        assertThat(images.get(1).legacy()).isFalse();
        assertThat(images.get(1).key()).isEqualTo("old");
        assertThat(images.get(2).legacy()).isTrue();
        assertThat(images).allMatch(image -> image.lease() == BaseImage.LeaseState.NONE);
    }

    @Test
    void aVolumeThatBacksOnABaseWithoutADomainIsItsUserToo() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        host.undefineDomain(host.lookupDomain("proxy-1").orElseThrow());

        BaseImage base = fixture.engine.images("host-1", Requests.deadline()).get(0);

        assertThat(base.users()).containsExactly("volume " + EngineFixture.overlay("proxy-1"));
    }

    @Test
    void aDryRunNamesTheUnusedBasesAndDeletesNothing() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        putBase(OLD);
        List<String> before = host.volumeNames(POOL);

        List<PrunedImage> pruned = fixture.engine.pruneImages("host-1", Duration.ZERO, true, Requests.deadline());

        assertThat(pruned).extracting(PrunedImage::name).containsExactly(OLD);
        assertThat(host.volumeNames(POOL)).isEqualTo(before);
    }

    @Test
    void pruneDeletesTheUnusedBasesWithTheirMarkersAndNeverOneInUse() {
        fixture.cacheBaseImage();
        fixture.create("proxy-1");
        putBase(OLD);
        putBase(LEGACY);

        List<PrunedImage> pruned = fixture.engine.pruneImages("host-1", Duration.ZERO, false, Requests.deadline());

        assertThat(pruned).extracting(PrunedImage::name).containsExactly(OLD, LEGACY);
        assertThat(host.volumeNames(POOL)).contains(BASE_VOLUME)
                .doesNotContain(OLD, OLD + ".complete", LEGACY, LEGACY + ".complete", OLD + ".lease");
        assertThat(fixture.engine.images("host-1", Requests.deadline())).extracting(BaseImage::name)
                .containsExactly(BASE_VOLUME);
    }

    @Test
    void pruneLeavesABaseWhoseFetchLeaseIsHeldAndOneYoungerThanAsked() {
        putBase(OLD);
        host.putVolume(POOL, OLD + ".lease", new PoolLease("t1", ELSEWHERE,
                Instant.now().plus(Duration.ofHours(1))).bytes());
        putBase(LEGACY);

        List<PrunedImage> locked = fixture.engine.pruneImages("host-1", Duration.ZERO, false, Requests.deadline());
        List<PrunedImage> young = fixture.engine.pruneImages("host-1", Duration.ofDays(7), false,
                Requests.deadline());

        assertThat(locked).extracting(PrunedImage::name).containsExactly(LEGACY);
        assertThat(young).as("a base of unknown age is older than nothing but zero").isEmpty();
        assertThat(host.volumeNames(POOL)).contains(OLD, OLD + ".complete", OLD + ".lease");
        assertThat(fixture.engine.images("host-1", Requests.deadline()).get(0).lease())
                .isEqualTo(BaseImage.LeaseState.HELD);
    }

    @Test
    void aPullFetchesOnceAndThenMovesNothing() {
        PulledImage first = fixture.engine.pullImage(IMAGE, "host-1", Requests.deadline());
        PulledImage second = fixture.engine.pullImage(IMAGE, "host-1", Requests.deadline());

        assertThat(first.fetched()).isTrue();
        assertThat(second.fetched()).isFalse();
        assertThat(second.name()).isEqualTo(BASE_VOLUME);
        assertThat(fixture.images.ensures()).isEqualTo(1);
    }

    @Test
    void aCreateWhoseBaseIsPrunedBeforeItsOverlayIsSafeFetchesItAnew() {
        fixture.cacheBaseImage();
        // As a prune that read no overlay and deleted the base right after this create found it cached.
        host.after("createVolume", () -> host.removeVolume(POOL, BASE_VOLUME));

        fixture.create("proxy-1");

        assertThat(fixture.images.ensures()).as("fetches").isEqualTo(1);
        assertThat(host.volumeNames(POOL)).contains(BASE_VOLUME, EngineFixture.overlay("proxy-1"));
        assertThat(fixture.engine.images("host-1", Requests.deadline()).get(0).users()).containsExactly("proxy-1");
    }

    @Test
    void aCreateWaitsForAPrunesLeaseAndKeepsItsOverlayWhenThePruneLeftTheBase() throws Exception {
        fixture.cacheBaseImage();
        host.after("createVolume", () -> host.putVolume(POOL, BASE_VOLUME + ".lease", new PoolLease("t2",
                ELSEWHERE, Instant.now().plus(Duration.ofHours(1)), PoolLease.PRUNE).bytes()));
        Thread prune = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException interrupted) {
                return;
            }
            host.removeVolume(POOL, BASE_VOLUME + ".lease");
        });
        prune.start();

        fixture.create("proxy-1");
        prune.join();

        assertThat(fixture.images.ensures()).as("fetches").isZero();
        assertThat(host.domainNames()).contains("proxy-1");
    }

    private void putBase(String name) {
        host.putVolume(POOL, name, IMAGE_BYTES);
        host.putVolume(POOL, name + ".complete", new byte[0]);
    }
}
