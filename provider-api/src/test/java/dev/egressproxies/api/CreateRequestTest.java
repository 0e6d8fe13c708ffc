package dev.egressproxies.api;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CreateRequestTest {
    private static final Placement PLACEMENT = new Placement("zone-a", "small", "debian-12");

    @ParameterizedTest
    @ValueSource(strings = {"a", "proxy-1", "0abc", "a23456789012345678901234567890123456789012345678901234567890123"})
    void acceptsDnsLabels(String name) {
        assertThatCode(() -> new CreateRequest(name, "uid-1", PLACEMENT, "").validate("fake"))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-a", "a-", "Proxy", "a_b", "a.b", "ä",
        "a234567890123456789012345678901234567890123456789012345678901234"})
    void rejectsNamesThatAreNotDnsLabels(String name) {
        assertThatThrownBy(() -> new CreateRequest(name, "uid-1", PLACEMENT, "").validate("fake"))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    org.assertj.core.api.Assertions.assertThat(e.kind()).isEqualTo(ErrorKind.PERMANENT);
                    org.assertj.core.api.Assertions.assertThat(e.operation()).isEqualTo(Operation.CREATE);
                    org.assertj.core.api.Assertions.assertThat(e.entry()).isEqualTo("fake");
                    org.assertj.core.api.Assertions.assertThat(e.detail()).contains("DNS label");
                });
    }

    @Test
    void aLongNameAppearsOnceInTheMessage() {
        String name = "n".repeat(200);

        assertThatThrownBy(() -> new CreateRequest(name, "uid-1", PLACEMENT, "").validate("fake"))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    org.assertj.core.api.Assertions.assertThat(e.instanceId()).isEqualTo(name);
                    org.assertj.core.api.Assertions.assertThat(e.getMessage().split(name, -1)).hasSize(2);
                    org.assertj.core.api.Assertions.assertThat(e.detail())
                            .startsWith("name of 200 characters is not a DNS label: use 1 to 63 characters");
                });
    }

    @Test
    void rejectsAnEmptyUid() {
        assertThatThrownBy(() -> new CreateRequest("proxy", null, PLACEMENT, "").validate("fake"))
                .isInstanceOf(ProviderException.class)
                .hasMessageContaining("uid is empty");
    }

    @Test
    void rejectsAUidWithSpaces() {
        assertThatThrownBy(() -> new CreateRequest("proxy", "a b", PLACEMENT, "").validate("fake"))
                .isInstanceOf(ProviderException.class)
                .hasMessageContaining("printable ASCII");
    }

    @Test
    void boundsCloudInitSizeInUtf8Bytes() {
        String atLimit = "x".repeat(CreateRequest.MAX_CLOUD_INIT_BYTES);
        assertThatCode(() -> new CreateRequest("proxy", "u", PLACEMENT, atLimit).validate("fake"))
                .doesNotThrowAnyException();
        String overLimitInBytes = "é".repeat(CreateRequest.MAX_CLOUD_INIT_BYTES / 2 + 1);
        assertThatThrownBy(() -> new CreateRequest("proxy", "u", PLACEMENT, overLimitInBytes).validate("fake"))
                .isInstanceOf(ProviderException.class)
                .hasMessageContaining("over the limit of " + CreateRequest.MAX_CLOUD_INIT_BYTES);
    }
}
