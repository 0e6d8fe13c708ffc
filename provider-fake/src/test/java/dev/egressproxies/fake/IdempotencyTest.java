package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class IdempotencyTest {
    private static final int THREADS = 16;

    @Test
    void createTwiceGivesOneIdAndOneInstance() {
        FakeProvider provider = TestProviders.inMemory();

        String first = provider.create(request("proxy-1"), deadline());
        String second = provider.create(request("proxy-1"), deadline());

        assertThat(second).isEqualTo(first);
        assertThat(provider.listManaged(deadline())).hasSize(1);
    }

    @Test
    void createAgainWithAnotherUidKeepsTheFirstOne() {
        FakeProvider provider = TestProviders.inMemory();
        String id = provider.create(request("proxy-1"), deadline());

        provider.create(new CreateRequest("proxy-1", "someone-else", new Placement("zone-a", "small", "debian-12"), ""),
                deadline());

        assertThat(provider.get(id, deadline()).uid()).isEqualTo("uid-proxy-1");
    }

    @Test
    void createOverAnInstanceThisPlatformDidNotCreateIsPermanentAndAdoptsNothing() {
        FakeProvider provider = TestProviders.inMemory();
        String id = provider.addUnmanaged("zone-a", "proxy-1");

        ProviderException error = providerError(() -> provider.create(request("proxy-1"), deadline()),
                ErrorKind.PERMANENT, Operation.CREATE, id);

        assertThat(error.detail()).contains("not created by this platform", "choose another name");
        assertThat(provider.listManaged(deadline())).isEmpty();
        assertThat(provider.get(id, deadline()).uid()).isEmpty();
    }

    @Test
    void concurrentCreatesOfOneNameGiveOneInstance() throws Exception {
        FakeProvider provider = TestProviders.inMemory();

        Set<String> ids = createConcurrently(provider, index -> "proxy-1");

        assertThat(ids).containsExactly("zone-a/proxy-1");
        List<Instance> instances = provider.listManaged(deadline());
        assertThat(instances).hasSize(1);
    }

    @Test
    void concurrentCreatesOfDistinctNamesGiveDistinctInstancesAndAddresses() throws Exception {
        FakeProvider provider = TestProviders.inMemory();

        Set<String> ids = createConcurrently(provider, index -> "proxy-" + index);

        assertThat(ids).hasSize(THREADS);
        List<Instance> instances = provider.listManaged(deadline());
        assertThat(instances).hasSize(THREADS);
        assertThat(instances.stream().map(Instance::ip).collect(Collectors.toSet())).hasSize(THREADS);
    }

    /** Starts {@link #THREADS} creates at once and returns the IDs they returned. */
    static Set<String> createConcurrently(FakeProvider provider, IntFunction<String> names)
            throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<String>> results = new ArrayList<>();
            for (int index = 0; index < THREADS; index++) {
                String name = names.apply(index);
                Callable<String> create = () -> {
                    start.await(10, TimeUnit.SECONDS);
                    return provider.create(request(name), deadline());
                };
                results.add(executor.submit(create));
            }
            List<String> ids = new ArrayList<>();
            for (Future<String> result : results) {
                ids.add(result.get(30, TimeUnit.SECONDS));
            }
            return Set.copyOf(ids);
        } finally {
            executor.shutdownNow();
        }
    }
}
