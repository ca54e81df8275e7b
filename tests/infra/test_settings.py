"""Rate limits and cookie settings read from the environment."""

import pytest

from infra import keyvalue
from infra.settings import RateLimits, Settings, SettingsError


def test_rate_limits_default_on_and_one_switch_turns_them_off():
    assert Settings.from_env({}).rate_limits == RateLimits()
    assert Settings.from_env({"EUCHRE_RATE_LIMITS": "off"}).rate_limits is None
    assert Settings.from_env({"EUCHRE_RATE_LIMITS": "on"}).rate_limits == RateLimits()


def test_each_limit_can_be_changed_or_turned_off():
    limits = Settings.from_env(
        {"EUCHRE_LIMIT_SIGN_UPS_PER_ADDRESS": "3/minute", "EUCHRE_LIMIT_MOVES_PER_PLAYER": "off"}
    ).rate_limits
    assert limits.sign_ups_per_address == "3/minute"
    assert limits.moves_per_player is None
    assert limits.sign_ins_per_name == RateLimits().sign_ins_per_name


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("EUCHRE_RATE_LIMITS", "maybe"),
        ("EUCHRE_LIMIT_MOVES_PER_PLAYER", "lots"),
        ("EUCHRE_SECURE_COOKIES", "always"),
        ("EUCHRE_SIGNED_HEADS", "sometimes"),
        ("EUCHRE_LOG_LEVEL", "loud"),
        ("EUCHRE_LOG_FORMAT", "xml"),
    ],
)
def test_bad_values_name_the_variable(variable, value):
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: value})


def test_heads_are_signed_unless_turned_off():
    assert Settings.from_env({}).signed_heads
    assert not Settings.from_env({"EUCHRE_SIGNED_HEADS": "off"}).signed_heads


def test_secure_cookies_default_to_auto():
    assert Settings.from_env({}).secure_cookies == "auto"
    assert Settings.from_env({"EUCHRE_SECURE_COOKIES": "ON"}).secure_cookies == "on"


def test_a_misspelt_variable_is_refused_naming_the_one_it_likely_meant():
    """Ignored before: EUCHRE_DATABSE_URL silently meant the embedded database."""
    with pytest.raises(
        SettingsError, match=r"EUCHRE_DATABSE_URL \(did you mean EUCHRE_DATABASE_URL\?\)"
    ):
        Settings.from_env({"EUCHRE_DATABSE_URL": "postgresql://db/euchre"})
    with pytest.raises(
        SettingsError, match=r"EUCHRE_LIMIT_MOVES_PER_PLAYR .*LIMIT_MOVES_PER_PLAYER"
    ):
        Settings.from_env({"EUCHRE_LIMIT_MOVES_PER_PLAYR": "off"})
    with pytest.raises(SettingsError, match=r"^EUCHRE_NOTHING_LIKE_IT: not a setting"):
        Settings.from_env({"EUCHRE_NOTHING_LIKE_IT": "1"})


def test_every_name_the_service_reads_and_the_tests_own_are_let_through():
    settings = Settings.from_env(
        {
            "EUCHRE_LIMIT_MOVES_PER_PLAYER": "off",
            "EUCHRE_STREAMS_PER_ADDRESS": "3",
            "EUCHRE_TEST_DATABASE_URL": "postgresql://elsewhere/test",
            "EUCHRE_BENCH_REDIS_URL": "redis://elsewhere",
            "PATH": "/usr/bin",
        }
    )
    assert settings.stream_limits.per_address == 3


@pytest.mark.parametrize("variable", ["EUCHRE_PORT", "EUCHRE_WORKER_METRICS_PORT"])
def test_a_port_is_0_for_a_free_one_or_a_tcp_port_and_nothing_else(variable):
    field = "port" if variable == "EUCHRE_PORT" else "worker_metrics_port"
    for value in ("0", "1", "8000", "65535"):
        assert getattr(Settings.from_env({variable: value}), field) == int(value)
    for value in ("-1", "65536", "http", "1.5"):
        with pytest.raises(SettingsError, match=f"{variable}.*from 0 \\(a free one\\) to 65535"):
            Settings.from_env({variable: value})


def test_redis_may_be_named_through_its_sentinels():
    url = "redis+sentinel://:se%2Fcret@a:26379,[::1]:26380/euchre/2"
    settings = Settings.from_env({"EUCHRE_REDIS_URL": url, "EUCHRE_BROKER_URL": url})
    assert settings.redis_url == settings.broker_url == url
    found = keyvalue.sentinels(url)
    assert found == keyvalue.Sentinels([("a", 26379), ("::1", 26380)], "euchre", 2, "se/cret")
    assert keyvalue.sentinels("redis://h:6379/0") is None


@pytest.mark.parametrize("variable", ["EUCHRE_REDIS_URL", "EUCHRE_BROKER_URL"])
@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+sentinel://a/euchre", "host:port for each Sentinel"),
        ("redis+sentinel://a:99999/euchre", "host:port for each Sentinel"),
        ("redis+sentinel://a:26379", "the service's name"),
        ("redis+sentinel://a:26379/euchre/x", "a db number"),
        ("http://a:6379", "redis\\+sentinel://host:26379"),
    ],
)
def test_a_redis_url_missing_a_part_says_which(variable, url, says):
    with pytest.raises(SettingsError, match=f"{variable}.*{says}"):
        Settings.from_env({variable: url})
