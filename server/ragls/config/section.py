"""The base of every settings section (`config/settings.py`, `config/retrieval_settings.py`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A `[section]` of the settings: keys it does not know are left out (`settings.normalize` warns of them), an
    assignment is validated, and nan / inf (legal TOML) are no setting's value: every number has finite bounds
    (docs/configuration.md, "Bounds")."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True, allow_inf_nan=False)
