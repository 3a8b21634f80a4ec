#pragma once

#include <atomic>
#include <initializer_list>
#include <memory>
#include <utility>

namespace blobbench {

// For Shared<T>::mut() as the last owner. GCC refuses fences under ThreadSanitizer, which does
// not model them: there a path that needed this one is reported as a race instead.
inline void acquireFromFormerOwners() {
#if !defined(__SANITIZE_THREAD__)
    std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// A value shared between copies until one of them changes it (copy on write). Samples of one
// session carry the same negotiated flags, parameters and effects; a project of 100,000 samples
// holds them once instead of 100,000 times. Reads go through the const members; the mutating
// ones (operator[], push_back, mut()) detach first, so a change never shows in another copy.
template <class T>
class Shared {
public:
    Shared() = default;
    explicit Shared(T value) : m_value(std::make_shared<T>(std::move(value))) {}
    Shared& operator=(T value) {
        m_value = std::make_shared<T>(std::move(value));
        return *this;
    }
    Shared& operator=(std::initializer_list<typename T::value_type> values) { return *this = T(values); }

    const T& get() const { return m_value ? *m_value : none(); }
    operator const T&() const { return get(); }  // NOLINT(google-explicit-constructor): reads as a T
    const T& operator*() const { return get(); }
    const T* operator->() const { return &get(); }

    // The value for changing: this copy's own from now on. Copies may live on other threads (a
    // Sample handed to the UI thread); when this is the last owner, the fence orders the former
    // owners' reads, released with their references, before the writes that follow.
    T& mut() {
        if (!m_value) {
            m_value = std::make_shared<T>();
        } else if (m_value.use_count() > 1) {
            m_value = std::make_shared<T>(*m_value);
        } else {
            acquireFromFormerOwners();
        }
        return *m_value;
    }

    // Whether two copies share one value (not merely equal ones).
    bool sharesWith(const Shared& other) const { return m_value && m_value == other.m_value; }
    const void* identity() const { return m_value.get(); }

    auto begin() const { return get().begin(); }
    auto end() const { return get().end(); }
    auto size() const { return get().size(); }
    bool empty() const { return get().empty(); }
    template <class K>
    decltype(auto) at(const K& key) const {
        return get().at(key);
    }
    template <class K>
    auto find(const K& key) const {
        return get().find(key);
    }
    template <class K>
    auto count(const K& key) const {
        return get().count(key);
    }
    template <class K>
    decltype(auto) operator[](K&& key) {
        return mut()[std::forward<K>(key)];
    }
    void push_back(typename T::value_type value) { mut().push_back(std::move(value)); }
    void clear() { m_value.reset(); }

    // Makes this copy share `last`'s value when the two are equal; otherwise `last` takes this
    // one's. Run over a sequence, equal neighbours end up holding one value.
    void shareWith(Shared& last) {
        if (sharesWith(last)) {
            return;
        }
        if (last.m_value && get() == last.get()) {
            m_value = last.m_value;
        } else {
            last.m_value = m_value;
        }
    }

    friend bool operator==(const Shared& a, const Shared& b) { return a.get() == b.get(); }
    friend bool operator==(const Shared& a, const T& b) { return a.get() == b; }
    friend bool operator<(const Shared& a, const Shared& b) { return a.get() < b.get(); }

private:
    static const T& none() {
        static const T none{};
        return none;
    }
    std::shared_ptr<T> m_value;
};

}  // namespace blobbench
