//! @generated fixtures.
