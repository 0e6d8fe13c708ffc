package dev.egressproxies.kvm;

import static dev.egressproxies.kvm.KvmFixture.IMAGE_BYTES;
import static dev.egressproxies.kvm.KvmFixture.IMAGE_PATH;
import static dev.egressproxies.kvm.KvmFixture.POOL;
import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.instance.PoolLease;
import dev.egressproxies.kvm.common.instance.PoolLeases;
import dev.egressproxies.kvm.common.instance.LeaseHolder;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.UploadSourceException;
import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The download of a base image into a host's pool on first use: once per (host, image) even under
 * concurrency, classified by what the server answers, and removed again when it fails.
 */
class BaseImageDownloadTest {
    private final KvmFixture fixture = KvmFixture.hosts(2);
    private final FakeLibvirtHost host = fixture.host();
    private final String leaseVolume = PoolLeases.volumeName(fixture.baseVolume);
    /** Another process on another machine, so only its lease's expiry ends it. */
    private static final LeaseHolder ELSEWHERE = new LeaseHolder("other-machine", "boot-1", 4242, 1000);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        threads.shutdownNow();
        fixture.close();
    }

    @Test
    void concurrentCreatesOnOneHostDownloadTheImageOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        fixture.server.serveAfter(IMAGE_PATH, IMAGE_BYTES, release);
        Future<String> first = threads.submit(() -> fixture.create("proxy-1"));
        awaitGets(1);
        Future<String> second = threads.submit(() -> fixture.create("proxy-2"));
        // Give the second create time to reach the image lock while the first one downloads.
        Thread.sleep(200);

        release.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("host-1/proxy-1");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("host-1/proxy-2");
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.callCounts()).containsEntry("uploadVolume", 4); // the fetch lease and the base once, two seeds
    }

    @Test
    void createsOnTwoHostsDownloadToEachWithoutWaitingForTheOther() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        fixture.server.serveAfter(IMAGE_PATH, IMAGE_BYTES, release);
        Future<String> first = threads.submit(() -> fixture.create("proxy-1"));
        Future<String> second = threads.submit(() -> fixture.provider.create(Requests.request("proxy-2",
                new Placement("host-2", "small", KvmFixture.IMAGE)), Requests.deadline()));

        awaitGets(2);
        release.countDown();

        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertThat(fixture.hosts.get(1).volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
    }

    @Test
    void waitingForAnotherDownloadEndsWithTheDeadline() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        fixture.server.serveAfter(IMAGE_PATH, IMAGE_BYTES, release);
        Future<String> first = threads.submit(() -> fixture.create("proxy-1"));
        awaitGets(1);

        long started = System.nanoTime();
        ProviderException error = catchProviderException(() -> fixture.provider.create(KvmFixture.request("proxy-2"),
                Deadline.after(Duration.ofMillis(300))));

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("another create downloading image 'debian-12' to host 'host-1'");
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 410})
    void aClientErrorIsPermanentAndLeavesNothing(int status) {
        fixture.server.status(IMAGE_PATH, status);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("image 'debian-12' (images.debian-12.url of provider entry 'kvm-test')",
                "answered HTTP " + status);
        assertThat(host.volumeNames(POOL)).isEmpty();
        assertThat(host.domainNames()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {429, 500, 502, 503})
    void aServerErrorOrTooManyRequestsIsTransient(int status) {
        fixture.server.status(IMAGE_PATH, status);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("answered HTTP " + status, "retry later");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aRedirectTheClientDidNotFollowIsPermanentAndNamesTheTarget() {
        fixture.server.status(IMAGE_PATH, 302, "Location", "https://mirror.example/debian.qcow2");

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("a redirect to https://mirror.example", "configure the URL it redirects to")
                .doesNotContain("/debian.qcow2");
    }

    @Test
    void aResponseWithoutContentLengthIsPermanent() {
        fixture.server.serveWithoutLength(IMAGE_PATH, IMAGE_BYTES);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("sent no Content-Length");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void anEmptyImageIsPermanent() {
        fixture.server.serve(IMAGE_PATH, new byte[0]);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("sent an empty image (Content-Length 0)");
    }

    @Test
    void aCompressedResponseIsPermanent() {
        fixture.server.serveEncoded(IMAGE_PATH, IMAGE_BYTES);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).contains("Content-Encoding gzip", "make the server send the file unencoded");
    }

    @Test
    void anUnreachableServerIsTransient() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        KvmProvider provider = fixture.providerWithImageAt("http://127.0.0.1:" + closedPort + "/debian.qcow2");

        ProviderException error = catchProviderException(() -> provider.create(KvmFixture.request("proxy-1"),
                Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("could not fetch the image from http://127.0.0.1:" + closedPort + " (",
                "check that the server is reachable");
    }

    @Test
    void aBodyCutOffIsTransientAndTheTruncatedBaseIsRemoved() {
        fixture.server.serveStalled(IMAGE_PATH, IMAGE_BYTES, 1000, baseVolumeCreated());

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("image 'debian-12'", "sent 1000 of " + IMAGE_BYTES.length + " bytes",
                "retry");
        assertThat(host.volumeNames(POOL)).as("no truncated base stays behind").isEmpty();
        assertThat(host.domainNames()).isEmpty();

        fixture.server.serve(IMAGE_PATH, IMAGE_BYTES);
        fixture.create("proxy-1");
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
    }

    @Test
    void aStalledBodyEndsWithTheDeadlineAndTheBaseIsRemoved() {
        CountDownLatch release = new CountDownLatch(1);
        fixture.server.serveStalled(IMAGE_PATH, IMAGE_BYTES, 4096, release);
        long started = System.nanoTime();

        ProviderException error = catchProviderException(() -> fixture.provider.create(KvmFixture.request("proxy-1"),
                Deadline.after(Duration.ofMillis(500))));

        release.countDown();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1500));
        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("deadline exceeded while downloading image debian-12 to host host-1");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void anUploadThatLibvirtFailsRemovesTheBaseAndTheLease() {
        afterTheLease("uploadVolume", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "stream aborted"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("uploading base image volume " + fixture.baseVolume, "stream aborted");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aRefreshThatFailsRemovesTheBase() {
        host.failNext("refreshPool", FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "cannot open directory"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.detail()).contains("refreshing storage pool egress-test after the upload");
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aBaseVolumeThatAppearsMeanwhileIsTransient() {
        afterTheLease("createVolume", FakeLibvirtHost.error(LibvirtErrorCode.STORAGE_VOLUME_EXISTS, "exists"));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("another process is fetching it");
    }

    @Test
    void aBaseThatAnotherCreateFinishedWhileThisOneWaitedIsNotDownloadedAgain() {
        // The survey finds no base; by the time the lock is held, it is there.
        host.after("lookupVolume", fixture::cacheBaseImage);

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
        assertThat(host.domain("proxy-1").state).isEqualTo(DomainState.RUNNING);
    }

    @Test
    void aBaseWithoutItsMarkerIsAnUploadThatWasCutOffAndIsReplaced() {
        host.putVolume(POOL, fixture.baseVolume, new byte[100]);

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(host.volume(POOL, fixture.baseMarker)).isNotNull();
    }

    @Test
    void aMarkerWithoutItsBaseIsDebrisAndTheImageIsDownloaded() {
        host.putVolume(POOL, fixture.baseMarker, new byte[1]);

        fixture.create("proxy-1");

        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
    }

    @Test
    void theMarkerIsCreatedOnlyAfterTheUploadAndTheRefresh() {
        fixture.create("proxy-1");

        List<String> calls = host.callLog();
        // The first upload fills the fetch lease; the lease is read again before the marker.
        int upload = calls.subList(calls.indexOf("uploadVolume") + 1, calls.size()).indexOf("uploadVolume")
                + calls.indexOf("uploadVolume") + 1;
        assertThat(calls.subList(upload, upload + 5)).containsExactly("uploadVolume", "refreshPool", "lookupVolume",
                "downloadVolume", "createVolume");
        assertThat(host.volume(POOL, fixture.baseMarker).parsed().text("/volume/target/format/@type"))
                .isEqualTo("raw");
    }

    @Test
    void aMarkerThatCannotBeCreatedRemovesTheBase() {
        // createVolume: the fetch lease, the base, then the marker.
        host.after("createVolume", () -> host.after("createVolume", () -> host.failNext("createVolume",
                FakeLibvirtHost.error(LibvirtErrorCode.INTERNAL_ERROR, "no space"))));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.detail()).contains("creating completeness marker " + fixture.baseMarker);
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void aDeadlineThatCutsTheUploadOffLeavesNothingTheNextCreateTakesForComplete() {
        // As when the pool abandons the upload and the base cannot be removed over the closed link.
        host.failNext("deleteVolume", FakeLibvirtHost.error(LibvirtErrorCode.RPC, "connection closed"));
        fixture.server.serveStalled(IMAGE_PATH, IMAGE_BYTES, 1000, baseVolumeCreated());
        catchProviderException(() -> fixture.create("proxy-1"));
        assertThat(host.volumeNames(POOL)).containsExactly(fixture.baseVolume);
        fixture.server.serve(IMAGE_PATH, IMAGE_BYTES);

        fixture.create("proxy-1");

        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
    }

    @Test
    void aSourceFailureTheAdapterReportsIsATransientDownloadFailure() {
        afterTheLease("uploadVolume", new UploadSourceException("the source ended after 0 of 262161 bytes", null));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("uploading base image volume " + fixture.baseVolume + " stopped because the"
                + " image stream failed: the source ended after 0 of");
        assertThat(error.getCause()).isInstanceOf(UploadSourceException.class);
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    @Test
    void anUploadThatBreaksTheLinkIsLeftForThePoolToSee() {
        IllegalStateException broken = new IllegalStateException("connection reset");
        host.failNext("uploadVolume", broken);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.getCause()).isSameAs(broken);
        assertThat(host.volumeNames(POOL)).isEmpty();
    }

    private void awaitGets(int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fixture.server.gets(IMAGE_PATH) < count && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(fixture.server.gets(IMAGE_PATH)).as("GET requests seen").isEqualTo(count);
    }

    @Test
    void aBaseWithoutMarkerUnderAnotherProcesssLiveLeaseIsLeftAloneAndTheCreateIsTransient() {
        host.putVolume(POOL, fixture.baseVolume, new byte[100]);
        host.putVolume(POOL, leaseVolume, leaseOf(ELSEWHERE, Instant.now().plus(Duration.ofMinutes(5))));

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("another process (process 4242 on other-machine) is downloading image"
                + " 'debian-12' to host 'host-1'", "expires at");
        assertThat(host.volume(POOL, fixture.baseVolume).content).hasSize(100);
        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
    }

    @Test
    void anExpiredLeaseOfAnotherProcessIsTakenOverAndItsCutOffBaseReplaced() {
        host.putVolume(POOL, fixture.baseVolume, new byte[100]);
        host.putVolume(POOL, leaseVolume, leaseOf(ELSEWHERE, Instant.now().minusSeconds(1)));

        fixture.create("proxy-1");

        assertThat(host.volume(POOL, fixture.baseVolume).content).isEqualTo(IMAGE_BYTES);
        assertThat(host.volumeNames(POOL)).contains(fixture.baseMarker).doesNotContain(leaseVolume);
    }

    @Test
    void aCreateThatLostItsLeaseDuringTheDownloadWritesNoMarkerAndDeletesNothing() {
        byte[] takeover = leaseOf(ELSEWHERE, Instant.now().plus(Duration.ofMinutes(5)));
        host.after("refreshPool", () -> host.volume(POOL, leaseVolume).content = takeover);

        ProviderException error = catchProviderException(() -> fixture.create("proxy-1"));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("lost the fetch lease", "now held by process 4242 on other-machine");
        assertThat(host.volumeNames(POOL)).containsExactlyInAnyOrder(fixture.baseVolume, leaseVolume);
        assertThat(host.volume(POOL, leaseVolume).content).isEqualTo(takeover);
    }

    @Test
    void theLeaseIsRemovedOnceTheMarkerIsWritten() {
        fixture.create("proxy-1");

        assertThat(host.volumeNames(POOL)).contains(fixture.baseVolume, fixture.baseMarker).doesNotContain(leaseVolume);
    }

    @Test
    void aLeaseLeftNextToACompleteBaseByAHolderThatIsGoneIsRemovedByTheNextCreate() throws Exception {
        fixture.cacheBaseImage();
        Process killed = new ProcessBuilder("true").start();
        killed.waitFor();
        LeaseHolder self = LeaseHolder.current();
        host.putVolume(POOL, leaseVolume, leaseOf(new LeaseHolder(self.machine(), self.bootId(), killed.pid(), 0),
                Instant.now().plus(Duration.ofMinutes(10))));

        fixture.create("proxy-1");

        assertThat(host.volumeNames(POOL)).contains(fixture.baseVolume, fixture.baseMarker).doesNotContain(leaseVolume);
        assertThat(fixture.server.gets(IMAGE_PATH)).isZero();
    }

    @Test
    void aLiveLeaseNextToACompleteBaseStays() {
        fixture.cacheBaseImage();
        byte[] live = leaseOf(ELSEWHERE, Instant.now().plus(Duration.ofMinutes(10)));
        host.putVolume(POOL, leaseVolume, live);

        fixture.create("proxy-1");

        assertThat(host.volume(POOL, leaseVolume).content).isEqualTo(live);
    }

    private static byte[] leaseOf(LeaseHolder holder, Instant expires) {
        return new PoolLease("feedface", holder, expires).bytes();
    }

    /**
     * Opens once the base volume was created, for a server that cuts the body off only then: the
     * image pipeline reads ahead, so a body cut off at once may fail the fetch before the upload
     * begins, and a test of what happens to a created base would then test nothing.
     */
    private CountDownLatch baseVolumeCreated() {
        return host.whenVolumeCreated(POOL, fixture.baseVolume);
    }

    /** Makes the call of {@code method} after the fetch lease's (its creation or its write) fail. */
    private void afterTheLease(String method, RuntimeException failure) {
        host.after(method, () -> host.failNext(method, failure));
    }
}
