package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProviderIdTest {
    private final FakeProvider provider = TestProviders.inMemory();

    @ParameterizedTest
    @ValueSource(strings = {"", "proxy-1", "/proxy-1", "zone-a/", "zone-a/Proxy-1", "zone-a/proxy_1",
            "zone-a/proxy-1/x", "zone a/proxy-1", "zone-a/-proxy", "-zone/proxy-1"})
    void malformedIdIsPermanentForGetAndSaysWhatAnIdLooksLike(String id) {
        ProviderException error = providerError(() -> provider.get(id, deadline()), ErrorKind.PERMANENT,
                Operation.GET, id);

        assertThat(error.detail()).contains("malformed", "ZONE/NAME", "zone-a/proxy-1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "proxy-1", "zone-a//proxy-1", "zone-a/PROXY"})
    void malformedIdIsPermanentForDelete(String id) {
        providerError(() -> provider.delete(id, deadline()), ErrorKind.PERMANENT, Operation.DELETE, id);
    }

    @Test
    void nullIdIsPermanent() {
        providerError(() -> provider.get(null, deadline()), ErrorKind.PERMANENT, Operation.GET, "");
    }

    @Test
    void unknownWellFormedIdIsNotFound() {
        ProviderException error = providerError(() -> provider.get("zone-a/never-made", deadline()),
                ErrorKind.NOT_FOUND, Operation.GET, "zone-a/never-made");

        assertThat(error.getMessage()).contains("zone-a/never-made", "fake-test");
    }

    @Test
    void deleteOfAnUnknownIdSucceeds() {
        assertThatCode(() -> provider.delete("zone-a/never-made", deadline())).doesNotThrowAnyException();
    }

    @Test
    void deleteTwiceSucceedsAndLeavesNothing() {
        String id = provider.create(request("proxy-1"), deadline());

        provider.delete(id, deadline());
        provider.delete(id, deadline());

        providerError(() -> provider.get(id, deadline()), ErrorKind.NOT_FOUND, Operation.GET, id);
        assertThat(provider.listManaged(deadline())).isEmpty();
    }

    @Test
    void deleteRemovesOnlyTheNamedInstance() {
        String kept = provider.create(request("proxy-1"), deadline());
        String deleted = provider.create(request("proxy-2"), deadline());

        provider.delete(deleted, deadline());

        assertThat(provider.listManaged(deadline())).extracting(instance -> instance.id()).containsExactly(kept);
    }
}
